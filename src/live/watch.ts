/**
 * `auditstorm watch`: analyze a log while it is written, from a pipe (stdin) or a followed file,
 * raising alerts as episodes open, worsen and close; the final report when the input ends or
 * {@link WatchRun.stop} is called (SIGINT/SIGTERM in the CLI).
 *
 * The bytes go through the same reader as `analyze()` (`readChain`: framing detection, every
 * input shape, bad-line accounting), marked live so the framing is detected from the first whole
 * line rather than the first 64 KB. Records go to a {@link LiveSession}; a timer ticks it.
 */
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { AnalyzeOptionsInput } from '../options.js';
import { markLiveStream } from '../ingest/peek.js';
import { readChain } from '../ingest/read.js';
import { resolveInputs, STDIN_NAME, type SourceChain } from '../ingest/sources.js';
import type { Report } from '../report/schema.js';
import { InputError, UsageError } from '../errors.js';
import type { LiveAlert } from './alerts.js';
import { FileFollower, type FollowOptions } from './follow.js';
import { LiveSession, statusWithRate, type LiveStatus } from './session.js';

/** Timers, injectable for tests. */
export interface Timers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The outside world of a watch. */
export interface WatchIO {
  /** Read when the input is `-` or absent. */
  stdin?: NodeJS.ReadableStream;
  /** Wall clock, UTC epoch ms (default `Date.now`). */
  now?: () => number;
  timers?: Timers;
  onAlert: (alert: LiveAlert) => void;
  /**
   * Called once when bad lines came but no audit event yet (checked with the status, every
   * `statusIntervalMs`), so a wrong or quiet pipe does not look like a quiet cluster; and each
   * time a followed file got shorter than the bytes read from it (truncated in place).
   */
  onWarning?: (message: string) => void;
  /** Called every `statusIntervalMs` (the CLI shows it on a terminal). */
  onStatus?: (status: LiveStatus & { eventsPerSec: number }) => void;
}

/** Settings of a watch besides the analysis options. */
export interface WatchSettings {
  /** How often (ms) the stream clock is ticked; default 250. */
  tickMs?: number;
  /** How often (ms) `onStatus` is called; default 2000. */
  statusIntervalMs?: number;
  /** For a followed file (a path, not `-`). */
  follow?: FollowOptions;
}

/** A running watch. */
export interface WatchRun {
  /** The session (alerts so far, snapshots). */
  readonly session: LiveSession;
  /** Stops reading now (what was read counts) and ends the watch. Idempotent. */
  stop(): void;
  /**
   * The final report, once the input ended or {@link stop} was called.
   * Rejects with an InputError when the input is not an audit log. Input cut short (a truncated
   * gzip stream) after events were read is listed in `input.sourceErrors` instead.
   */
  readonly done: Promise<Report>;
}

const realTimers: Timers = {
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

/**
 * Starts watching `options.inputs[0]` (`-` or nothing: stdin; a named pipe or device: read as a
 * stream; any other path: that file, followed across rotation, waited for if missing).
 *
 * @throws UsageError for more than one input or a directory; ConfigError for invalid options
 */
export async function watch(options: AnalyzeOptionsInput, io: WatchIO, settings: WatchSettings = {}): Promise<WatchRun> {
  const inputs = options.inputs ?? [];
  if (inputs.length > 1) throw new UsageError('watch reads one input: a file to follow, or "-" for stdin');
  const session = new LiveSession(options, { now: io.now ?? Date.now, onAlert: io.onAlert });
  const path = inputs[0] ?? '-';
  let follower: FileFollower | null = null;
  let chain: SourceChain;
  const st = path === '-' ? null : await stat(path).catch(() => null);
  if (path === '-' || st?.isFIFO() === true || st?.isCharacterDevice() === true) {
    // A stream: stdin, a named pipe, `<(tail -F …)`. Read as `analyze` reads it (gzip sniffed), marked live.
    if (path === '-' && io.stdin === undefined) throw new UsageError('watch -: no standard input given');
    const [streamChain] = await resolveInputs([path], { stdin: (io.stdin ?? Readable.from([])) as Readable });
    const spec = streamChain!.members[0]!;
    chain = {
      name: path === '-' ? STDIN_NAME : path,
      members: [
        {
          ...spec,
          open: async () => {
            const o = await spec.open();
            markLiveStream(o.stream);
            return o;
          },
        },
      ],
    };
  } else {
    if (/\/$/.test(path)) throw new UsageError(`watch ${path}: give the active log file (e.g. ${path}audit.log), not a directory`);
    const f = new FileFollower(path, {
      ...settings.follow,
      onTruncate: (size, offset) => {
        io.onWarning?.(
          `${path} got shorter (${size.toLocaleString('en-US')} bytes) than the ${offset.toLocaleString('en-US')} bytes read: truncated in place; reading it again from its start`,
        );
      },
    });
    follower = f;
    await f.ready; // lines appended from now on are read
    chain = {
      name: path,
      members: [
        {
          name: path,
          kind: 'file',
          bytes: 0,
          open: async () => ({
            stream: markLiveStream(f.stream),
            gzip: false,
            get bytesRead() {
              return f.bytesRead;
            },
          }),
        },
      ],
    };
  }

  const o = session.options;
  // Input cut short after events were read (a truncated gzip stream) ends the watch with the
  // report of what was read, the source listed as cut short; input that held no event fails it.
  const onError = (source: string, err: InputError): void => {
    if (read.stats.every((s) => s.events === 0)) throw err;
    session.addSourceError(source, err.message);
  };
  const read = readChain(chain, session.normalizer, { maxLineLength: o.maxLineLength, sniffLines: o.sniffLines, inputFormat: o.inputFormat }, session.bad, onError);
  for (const s of read.stats) session.addSource(s);

  const timers = io.timers ?? realTimers;
  const now = io.now ?? Date.now;
  const tick = timers.setInterval(() => session.tick(), settings.tickMs ?? 250);
  let status: unknown = null;
  let warned = false;
  const warnIfNothingRead = (): void => {
    if (warned || io.onWarning === undefined) return;
    const s = session.status();
    const logLines = read.stats.reduce((n, x) => n + x.logLines, 0);
    if (s.events === 0 && s.badLines === 0 && logLines > 0) {
      warned = true;
      io.onWarning(
        `no audit event yet: ${logLines} line${logLines === 1 ? '' : 's'} of the API server's own log (klog) so far, skipped; ` +
          'kubectl logs shows audit events only when the API server writes them to stdout (--audit-log-path=-)',
      );
      return;
    }
    if (s.events > 0 || s.badLines === 0) return;
    warned = true;
    const first = session.bad.samples()[0];
    io.onWarning(
      `no audit event yet: ${s.badLines === 1 ? 'the 1 line read so far is not an audit event' : `none of the ${s.badLines} lines read so far is an audit event`}` +
        `${first ? ` (line ${first.line}: ${first.reason})` : ''}; still reading (the watch stops with exit 2 after ${o.sniffLines} such lines)`,
    );
  };
  const warnTimer = io.onWarning ? timers.setInterval(warnIfNothingRead, Math.min(1000, settings.statusIntervalMs ?? 1000)) : null;
  if (io.onStatus) {
    const onStatus = io.onStatus;
    const read = statusWithRate(session, now);
    status = timers.setInterval(() => onStatus(read()), settings.statusIntervalMs ?? 2000);
  }

  let stopNow: () => void = () => {};
  const stopped = new Promise<'stop'>((resolve) => {
    stopNow = () => resolve('stop');
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    follower?.stop();
    stopNow();
  };

  const done = (async (): Promise<Report> => {
    const it = read.batches[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([it.next(), stopped]);
        if (next === 'stop') break;
        if (next.done === true) break;
        session.push(next.value);
      }
    } finally {
      timers.clearInterval(tick);
      if (status !== null) timers.clearInterval(status);
      if (warnTimer !== null) timers.clearInterval(warnTimer);
      follower?.stop();
      // A pending read of a pipe that never ends must not hold the report back.
      void Promise.resolve(it.return?.()).catch(() => {});
    }
    return session.finish();
  })();
  return { session, stop, done };
}
