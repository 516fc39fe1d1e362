/**
 * Entry point of a parallel-reader thread (`parallel.ts` starts it): answers each
 * {@link WorkRequest} with {@link work}'s result, and each {@link RangeRequest} with
 * {@link workRange}'s, its typed arrays transferred.
 */
import { parentPort } from 'node:worker_threads';
import { work, workRange, WorkState, type RangeRequest, type WorkRequest } from './work-lines.js';

if (parentPort !== null) {
  const port = parentPort;
  const state = new WorkState();
  port.on('message', (req: WorkRequest | RangeRequest) => {
    const res = 'fd' in req ? workRange(req, state) : work(req, state);
    port.postMessage(res, [res.kinds.buffer as ArrayBuffer, res.numbers.buffer as ArrayBuffer]);
  });
}
