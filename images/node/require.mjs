// Preloaded (node --import) by the javascript and typescript plugins: the
// program is an ES module (main.mjs, so top-level await works), which has no
// require(); this gives it one that resolves from /work, so that
// `require('node:fs')` works as well as `import fs from 'node:fs'`.
//
// Installed packages (docs/packages.md) arrive as NODE_PATH, read-only
// directories outside /work. require() honours NODE_PATH; ES imports do
// not, so a resolve hook retries a bare specifier that fails from each of
// those directories.
import { createRequire, registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

globalThis.require ??= createRequire(`${process.cwd()}/`);

const dirs = (process.env.NODE_PATH ?? '').split(':').filter(Boolean);
if (dirs.length) {
  registerHooks({
    resolve(specifier, context, next) {
      try {
        return next(specifier, context);
      } catch (err) {
        if (err?.code !== 'ERR_MODULE_NOT_FOUND' || /^[./]|^[a-z]+:/i.test(specifier)) throw err;
        for (const d of dirs) {
          try {
            return next(specifier, { ...context, parentURL: pathToFileURL(`${d}/`).href });
          } catch { /* the next directory */ }
        }
        throw err;
      }
    },
  });
}
