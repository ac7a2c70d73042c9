function escalate(): void {
  process.setgid(0);
  process.setuid(0);
}
escalate();
