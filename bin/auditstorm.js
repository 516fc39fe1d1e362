#!/usr/bin/env node
// Stable entry point: other tooling calls `node bin/auditstorm.js analyze PATH...`.
import { tuneV8 } from '../dist/cli/heap.js';

// Before the rest is loaded: V8's flags then hold for all of it, module loading included.
tuneV8(process.execArgv, process.env.NODE_OPTIONS);
const { main } = await import('../dist/cli/main.js');
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`auditstorm: internal error: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 2;
  },
);
