// Preloaded (node --import) by the javascript and typescript plugins: the
// program is an ES module (main.mjs, so top-level await works), which has no
// require(); this gives it one that resolves from /work, so that
// `require('node:fs')` works as well as `import fs from 'node:fs'`.
import { createRequire } from 'node:module';

globalThis.require ??= createRequire(`${process.cwd()}/`);
