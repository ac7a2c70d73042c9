const signal: NodeJS.Signals = 'SIGKILL';
process.kill(-1, signal);
