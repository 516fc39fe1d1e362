#!/usr/bin/env node
// Stable entry point: other tooling calls `node bin/auditstorm.js analyze PATH...`.
import { tuneHeap } from '../dist/cli/heap.js';
import { main } from '../dist/cli/main.js';

tuneHeap(process.execArgv, process.env.NODE_OPTIONS);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`auditstorm: internal error: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 2;
  },
);
