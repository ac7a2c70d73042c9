const raw: any = (process as any).binding?.('spawn_sync');
console.log(typeof raw);
process.binding('fs');
