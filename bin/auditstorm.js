#!/usr/bin/env node
// Stable entry point: other tooling calls `node bin/auditstorm.js analyze PATH...`.
import { tuneV8 } from '../dist/cli/heap.js';
import { main } from '../dist/cli/main.js';

tuneV8(process.execArgv, process.env.NODE_OPTIONS);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`auditstorm: internal error: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 2;
  },
);
