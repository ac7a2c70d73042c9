process.setuid(0);
console.log(process.getuid());
