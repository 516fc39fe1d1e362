/**
 * Entry point of a parallel-reader thread (`parallel.ts` starts it): answers each
 * {@link WorkRequest} with {@link work}'s result, and each {@link RangeRequest} with
 * {@link workRange}'s, its typed arrays transferred.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { work, workRange, WorkState, type RangeRequest, type WorkRequest } from './work-lines.js';

if (parentPort !== null) {
  const requests = parentPort;
  // Answers go back on the port the pool gave (`workerData.answers`), which the reading thread
  // can also read synchronously (`receiveMessageOnPort`) between its batches.
  const answers = ((workerData as { answers?: MessagePort } | null)?.answers ?? parentPort) as MessagePort;
  const state = new WorkState();
  requests.on('message', (req: WorkRequest | RangeRequest) => {
    const res = 'fd' in req ? workRange(req, state) : work(req, state);
    answers.postMessage(res, [res.kinds.buffer as ArrayBuffer, res.numbers.buffer as ArrayBuffer]);
  });
}
