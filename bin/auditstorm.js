#!/usr/bin/env node
// Stable entry point: other tooling calls `node bin/auditstorm.js analyze PATH...`.
import { adaptHeapGrowth, HEAP_FLAG, largeHeapFlag, tuneV8 } from '../dist/cli/heap.js';

// Before the rest is loaded: V8's flags then hold for all of it, module loading included.
// The heap's growing factor then follows the live heap (adaptHeapGrowth), unless the user chose one;
// a large live heap also gets --optimize-for-size, unless the user chose that.
if (tuneV8(process.execArgv, process.env.NODE_OPTIONS).includes(HEAP_FLAG)) adaptHeapGrowth(largeHeapFlag(process.execArgv, process.env.NODE_OPTIONS));
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
