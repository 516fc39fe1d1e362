/**
 * Following a log file as it grows, across rotation: `tail -F` semantics as a `Readable`.
 *
 * kube-apiserver's log backend rotates through lumberjack (reference `audit-formats.md` §6.1):
 * the active file is renamed to `audit-<time>.log`, a new `audit.log` is created, and with
 * `--audit-log-compress` the renamed file is gzipped (a new `.gz` written, the renamed file
 * deleted) shortly after. The follower keeps the old file's descriptor open, so the rename and
 * the deletion do not affect it: when the path names a different file (another inode or device)
 * or no file, the old descriptor is read to its end first, then closed, and the new file is read
 * from its start. A file that shrinks under the same inode (`copytruncate`) is read again from
 * its start. Polling (every `pollMs`), not `fs.watch`: it works the same on every file system,
 * including network and container overlay mounts where inotify events are missing.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeFsError, InputError } from '../errors.js';
import { isGzipMagic } from '../ingest/sources.js';

/** Settings of a {@link FileFollower}. */
export interface FollowOptions {
  /** How often (ms) to look for new bytes and for rotation when at the end of the file. Default 250. */
  pollMs?: number;
  /** Read what the file already holds first (default false: start at its end, as `tail -f` does). */
  fromStart?: boolean;
  /** Bytes read per call (default 256 KiB). */
  chunkBytes?: number;
  /**
   * Called when the file shrank under the same inode (`copytruncate`, or truncated by hand):
   * `size` its new size in bytes, `offset` how far it had been read; it is then read again from
   * its start.
   */
  onTruncate?: (size: number, offset: number) => void;
}

/** Follows one path; see the module comment. */
export class FileFollower {
  /** Bytes read so far, over every file followed. */
  bytesRead = 0;
  /** Times the path was seen to name a new file (rotation) or to shrink (truncation). */
  rotations = 0;
  /** The bytes, in order, across rotations. Ends only after {@link stop}. */
  readonly stream: Readable;
  /**
   * Resolves once the starting point is fixed: the file opened and, without `fromStart`, its
   * current end taken (or the file found missing, then it is read from its start when it
   * appears). Bytes appended after this are read. Rejects like the stream for an unreadable path.
   */
  readonly ready: Promise<void>;
  private readonly start: Promise<{ cur: { fh: FileHandle; ino: number; dev: number } | null; pos: number }>;
  private readonly abort = new AbortController();
  private readonly pollMs: number;
  private readonly chunkBytes: number;

  /**
   * @param path the active log file (`/var/log/kubernetes/audit/audit.log`); it may not exist
   *   yet, then it is waited for and read from its start
   */
  constructor(
    readonly path: string,
    private readonly opts: FollowOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 250;
    this.chunkBytes = opts.chunkBytes ?? 256 * 1024;
    this.start = this.init();
    this.ready = this.start.then(() => {});
    this.ready.catch(() => {}); // the stream reports the error
    this.stream = Readable.from(this.run(), { objectMode: false });
  }

  private async init(): Promise<{ cur: { fh: FileHandle; ino: number; dev: number } | null; pos: number }> {
    const cur = await this.openPath();
    if (cur === null) return { cur, pos: 0 }; // created later: holds only new lines
    return { cur, pos: this.opts.fromStart === true ? 0 : (await cur.fh.stat()).size };
  }

  /** Stops following: the stream ends after the bytes already read. */
  stop(): void {
    this.abort.abort();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async wait(): Promise<void> {
    try {
      await sleep(this.pollMs, undefined, { signal: this.abort.signal });
    } catch {
      // aborted: the loop sees `stopped`
    }
  }

  /** Opens the path, or null when it does not exist (yet). */
  private async openPath(): Promise<{ fh: FileHandle; ino: number; dev: number } | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new InputError(`Cannot follow "${this.path}": ${describeFsError(err)}.`, 'Check the path and its permissions.', { cause: err });
    }
    const st = await fh.stat();
    if (!st.isFile()) {
      await fh.close();
      throw new InputError(`Cannot follow "${this.path}": not a regular file.`, 'Give the active log file, e.g. /var/log/kubernetes/audit/audit.log.');
    }
    // A gzip file is a rotated log: its bytes are not lines to follow.
    const head = Buffer.alloc(2);
    if (st.size >= 2 && (await fh.read(head, 0, 2, 0)).bytesRead === 2 && isGzipMagic(head)) {
      await fh.close();
      throw new InputError(
        `Cannot follow "${this.path}": it is gzip-compressed (a rotated log).`,
        `Read it with \`auditstorm analyze ${this.path}\`, or follow the active log (audit.log).`,
      );
    }
    return { fh, ino: st.ino, dev: st.dev };
  }

  private async *run(): AsyncGenerator<Buffer> {
    let { cur, pos } = await this.start;
    while (cur === null && !this.stopped) {
      await this.wait();
      cur = await this.openPath();
    }
    if (cur === null) return;
    const buf = (): Buffer => Buffer.allocUnsafe(this.chunkBytes);
    try {
      for (;;) {
        // Read what is there.
        const b = buf();
        const { bytesRead } = await cur.fh.read(b, 0, b.length, pos);
        if (bytesRead > 0) {
          pos += bytesRead;
          this.bytesRead += bytesRead;
          yield b.subarray(0, bytesRead);
          continue;
        }
        if (this.stopped) return;
        // At the end: has the path moved on to a new file, or shrunk?
        let st: { ino: number; dev: number; size: number } | null;
        try {
          st = await stat(this.path);
        } catch {
          st = null; // renamed away, new file not created yet
        }
        if (st !== null && st.ino === cur.ino && st.dev === cur.dev) {
          if (st.size < pos) {
            this.rotations++;
            this.opts.onTruncate?.(st.size, pos);
            pos = 0; // truncated in place
            continue;
          }
          await this.wait();
          continue;
        }
        if (st !== null) {
          // Rotated: finish the old descriptor (the writer may have appended before renaming).
          for (;;) {
            const rest = buf();
            const r = await cur.fh.read(rest, 0, rest.length, pos);
            if (r.bytesRead === 0) break;
            pos += r.bytesRead;
            this.bytesRead += r.bytesRead;
            yield rest.subarray(0, r.bytesRead);
          }
          const next = await this.openPath();
          if (next !== null) {
            await cur.fh.close();
            cur = next;
            pos = 0;
            this.rotations++;
            continue;
          }
        }
        await this.wait();
      }
    } finally {
      await cur.fh.close().catch(() => {});
    }
  }
}
