/**
 * Entry point of a parallel-reader thread (`parallel.ts` starts it): answers each
 * {@link WorkRequest} with {@link work}'s result, and each {@link RangeRequest} with
 * {@link workRange}'s, its typed arrays transferred.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { claimRange, skippedRange, work, workRange, WorkState, type RangeRequest, type WorkRequest, type WorkResult } from './work-lines.js';

if (parentPort !== null) {
  const requests = parentPort;
  // Answers go back on the port the pool gave (`workerData.answers`), which the reading thread
  // reads synchronously (`receiveMessageOnPort`), in range mode only when it wants the answer.
  const data = workerData as { answers?: MessagePort; claims?: Int32Array; posted?: Int32Array } | null;
  const answers = data?.answers ?? parentPort;
  // Range claims shared with the reading thread, which decodes a range itself when it would
  // otherwise wait for it (`decodeRanges`).
  const claims = data?.claims ?? null;
  // Answers posted, counted for the reading thread, which waits on it (`Pool.arrival`).
  const posted = data?.posted ?? null;
  const answer = (res: WorkResult, transfer: ArrayBuffer[]): void => {
    answers.postMessage(res, transfer);
    if (posted !== null) {
      Atomics.add(posted, 0, 1);
      Atomics.notify(posted, 0);
    }
  };
  const state = new WorkState();
  requests.on('message', (req: WorkRequest | RangeRequest) => {
    if ('fd' in req && req.claim >= 0 && claims !== null && !claimRange(claims, req.claim, req.id, true)) {
      answer(skippedRange(req.id, state), []);
      return;
    }
    const res = 'fd' in req ? workRange(req, state) : work(req, state);
    answer(res, [res.kinds.buffer as ArrayBuffer, res.numbers.buffer as ArrayBuffer]);
  });
}
