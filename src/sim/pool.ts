/**
 * Runs simulated cases in worker threads, so the evaluation uses more than one core: each
 * worker imports the scenarios itself and answers `{ id, scenario, set, seed }` with
 * `{ id, result }` (a {@link SimCaseResult}, structured-cloned) or `{ id, error }`.
 */
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { ALL_SCENARIOS } from './all.js';
import { runSimCase, simSet, type SimCaseResult, type SimSet } from './evaluate.js';

interface Request {
  id: number;
  scenario: string;
  set: SimSet['name'];
  seed: number;
}

/** A fixed number of worker threads running {@link runSimCase}; `close()` ends them. */
export class SimPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: Array<(w: Worker) => void> = [];
  private readonly all: Worker[] = [];
  private nextId = 0;

  /** `size`: worker threads (at least 1). */
  constructor(size: number) {
    for (let i = 0; i < Math.max(1, size); i++) {
      const w = new Worker(new URL(import.meta.url));
      w.unref();
      this.all.push(w);
      this.idle.push(w);
    }
  }

  private take(): Promise<Worker> {
    const w = this.idle.pop();
    if (w) return Promise.resolve(w);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(w: Worker): void {
    const next = this.waiting.shift();
    if (next) next(w);
    else this.idle.push(w);
  }

  /**
   * Run one case on a free worker.
   * @throws Error with the worker's message when the case fails there, or when the worker exits.
   */
  async run(scenario: string, set: SimSet['name'], seed: number): Promise<SimCaseResult> {
    const w = await this.take();
    const id = this.nextId++;
    try {
      return await new Promise<SimCaseResult>((resolve, reject) => {
        const onMessage = (m: { id: number; result?: SimCaseResult; error?: string }) => {
          if (m.id !== id) return;
          w.off('message', onMessage);
          w.off('error', onError);
          if (m.error !== undefined) reject(new Error(`${scenario} seed ${seed}: ${m.error}`));
          else resolve(m.result as SimCaseResult);
        };
        const onError = (e: Error) => {
          w.off('message', onMessage);
          reject(e);
        };
        w.on('message', onMessage);
        w.once('error', onError);
        w.postMessage({ id, scenario, set, seed } satisfies Request);
      });
    } finally {
      this.give(w);
    }
  }

  /** End every worker. */
  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (m: Request) => {
    const sc = ALL_SCENARIOS.find((x) => x.name === m.scenario);
    if (!sc) {
      port.postMessage({ id: m.id, error: `unknown scenario ${m.scenario}` });
      return;
    }
    runSimCase(sc, simSet(m.set), m.seed).then(
      (result) => port.postMessage({ id: m.id, result }),
      (e: unknown) => port.postMessage({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    );
  });
}
