/**
 * Input sources: files, directories of rotated logs, and stdin, opened as streams of
 * decompressed bytes.
 *
 * Rotation follows kube-apiserver's log backend, which writes through `natefinch/lumberjack`
 * v2.2.1: backups are `<prefix>-<2006-01-02T15-04-05.000><ext>` in UTC, gzipped to `…<ext>.gz`
 * with `--audit-log-compress`; the active file is `<prefix><ext>` (reference
 * `audit-formats.md` §6.1). gzip is recognised by its magic bytes `1f 8b` (RFC 1952), not by name.
 */
import { createReadStream, ReadStream, type Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { describeFsError, InputError } from '../errors.js';

/** How a source is stored: plain file, gzip file, or standard input (gzip or not). */
export type SourceKind = 'file' | 'gzip' | 'stdin';

/** An opened source. */
export interface OpenedSource {
  /**
   * Decompressed bytes. Read failures, including corrupt or truncated gzip data, are emitted as a
   * stream error that is an {@link InputError} naming the source.
   */
  readonly stream: Readable;
  /** True when the data was gzip (detected by magic bytes). */
  readonly gzip: boolean;
  /** Raw (on-disk, compressed) bytes read so far; grows while `stream` is consumed. */
  readonly bytesRead: number;
  /**
   * The descriptor `stream` reads a file through (a file opened by path), for reading it again
   * at any offset (`decodeRanges`) without opening it again — so a rotation cannot swap the file
   * in between. Valid until `stream` is destroyed or ends; absent for stdin.
   */
  readonly fd?: number;
}

/** One file (or stdin) to read. */
export interface SourceSpec {
  /** Path as given or found in a directory; `<stdin>` for standard input. */
  readonly name: string;
  /** `gzip` when a regular file starts with the gzip magic bytes; stdin is always `stdin`. */
  readonly kind: SourceKind;
  /** On-disk size in bytes; 0 for stdin, pipes and devices. */
  readonly bytes: number;
  /** Path of a regular file (which can be read again at any offset); absent for stdin, pipes and devices. */
  readonly path?: string;
  /**
   * Why a directory entry cannot be read (a dangling symlink, a symlink loop, a FIFO, a file that
   * cannot be opened): the read skips it with this warning and lists it among the skipped
   * sources; `open()` rejects with it.
   */
  readonly unreadable?: InputError;
  /** Opens the source. Rejects with {@link InputError} if it cannot be read. Call once. */
  open(): Promise<OpenedSource>;
}

/** The rotated files of one log in time order (oldest first, active file last). */
export interface SourceChain {
  /** The active file's path (`dir/audit.log`), even if only rotated files exist; or the source name. */
  readonly name: string;
  readonly members: readonly SourceSpec[];
}

/** Name used for standard input in stats and bad-line samples. */
export const STDIN_NAME = '<stdin>';

const READ_CHUNK = 256 * 1024;
/**
 * Inflated bytes per chunk, and so per run of lines posted to a parser thread: 1 MB runs cost
 * less per byte than smaller ones for a few MB more peak RSS, and larger ones are no faster
 * (see docs/performance.md, "Records moved from code comments").
 */
const GUNZIP_CHUNK = 1024 * 1024;

/** lumberjack backup name: `<prefix>-YYYY-MM-DDTHH-MM-SS.mmm[<ext>][.gz]` (reference §6.1). */
const ROTATED = /^(.+)-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})(\.[^.]+)?(\.gz)?$/;

/** Whether `head` starts with gzip's magic bytes (1f 8b). */
export function isGzipMagic(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

function pathError(p: string, err: unknown): InputError {
  return new InputError(`Cannot read input "${p}": ${describeFsError(err)}.`, 'Check the path and its permissions.', { cause: err });
}

/** The error a source's stream emits: an {@link InputError} naming the source. */
function readError(name: string, gzip: boolean, err: unknown): InputError {
  if (err instanceof InputError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (gzip && typeof code === 'string' && code.startsWith('Z_')) {
    return new InputError(
      `Cannot read "${name}": corrupt or truncated gzip data (${(err as Error).message}).`,
      'Check it with `gzip -t`; a file still being written or copied may be cut short.',
      { cause: err },
    );
  }
  return new InputError(`Cannot read "${name}": ${describeFsError(err)}.`, undefined, { cause: err });
}

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.from(chunk as Uint8Array);
}

/** `raw` as Buffers, counting raw bytes into `counter`. */
async function* counted(raw: AsyncIterable<unknown>, counter: { bytesRead: number }): AsyncGenerator<Buffer> {
  for await (const chunk of raw) {
    const bytes = toBuffer(chunk);
    counter.bytesRead += bytes.length;
    yield bytes;
  }
}

/** Yields `head`, then the rest of `rest`; ending early ends `rest`. */
async function* prepend(head: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* head;
    for (let r = await rest.next(); r.done !== true; r = await rest.next()) yield r.value;
  } finally {
    await rest.return?.();
  }
}

/** Bytes of a gzip member's trailer: CRC-32 and ISIZE (RFC 1952 §2.3). */
const GZIP_TRAILER = 8;

/** `chunks` with their last {@link GZIP_TRAILER} bytes held back and yielded alone at the end. */
async function* trailerApart(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let held: Buffer | null = null;
  for await (const chunk of chunks) {
    if (chunk.length >= GZIP_TRAILER) {
      if (held !== null) yield held;
      if (chunk.length > GZIP_TRAILER) yield chunk.subarray(0, chunk.length - GZIP_TRAILER);
      held = Buffer.from(chunk.subarray(chunk.length - GZIP_TRAILER));
    } else {
      const all: Buffer = held === null ? Buffer.from(chunk) : Buffer.concat([held, chunk]);
      if (all.length > GZIP_TRAILER) yield all.subarray(0, all.length - GZIP_TRAILER);
      held = all.length > GZIP_TRAILER ? all.subarray(all.length - GZIP_TRAILER) : all;
    }
  }
  if (held !== null) yield held;
}

/**
 * Writes `chunks` to `gunzip` one at a time, the last {@link GZIP_TRAILER} bytes apart, then ends
 * it. zlib fails a write without handing on what that write inflated: a bad CRC checked in the
 * write of a file's last chunk would lose the chunk's lines, and the last chunk is inflated with
 * `Z_FINISH` when `end()` comes before it was processed, so a file cut short would lose its last
 * lines. Written apart and waited for, the failing write has nothing to lose. A failure of
 * `chunks` destroys `gunzip` with it.
 */
async function feedGunzip(chunks: AsyncIterable<Buffer>, gunzip: Gunzip): Promise<void> {
  const write = (b: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      gunzip.write(b, (err) => (err ? reject(err) : resolve()));
    });
  try {
    for await (const b of trailerApart(chunks)) await write(b);
    gunzip.end();
  } catch (err) {
    gunzip.destroy(err as Error); // a no-op when gunzip failed (it holds its own error)
  }
}

/**
 * The chunks of `stream`, ending with its error only after the chunks it held when it failed:
 * Node's async iterator drops those, and a gzip stream that fails its trailer check or is cut
 * short fails right after pushing its last lines. Ending the iteration early destroys `stream`.
 */
async function* keepBeforeError(stream: Readable): AsyncGenerator<Buffer> {
  let failure = null as { err: unknown } | null; // set by the listeners
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  stream.on('readable', notify);
  stream.on('end', () => {
    ended = true;
    notify();
  });
  stream.on('close', () => {
    ended = true;
    notify();
  });
  stream.on('error', (err) => {
    failure ??= { err };
    notify();
  });
  try {
    for (;;) {
      const chunk = stream.read() as Buffer | null; // still gives what was buffered after an error
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (failure !== null) throw failure.err;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.destroy();
  }
}

/** Re-throws any failure of `body` as the source's {@link InputError}. */
async function* guarded(name: string, gzip: boolean, body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (err) {
    throw readError(name, gzip, err);
  }
}

/** Opens `raw`, sniffs the gzip magic from its first bytes, and decompresses if needed. */
async function openDecoded(name: string, raw: Readable): Promise<OpenedSource> {
  const counter = { bytesRead: 0 };
  const chunks = counted(raw, counter);
  const head: Buffer[] = [];
  try {
    for (let headBytes = 0; headBytes < 2;) {
      const r = await chunks.next();
      if (r.done === true) break;
      headBytes += r.value.length;
      head.push(r.value);
    }
  } catch (err) {
    throw readError(name, false, err);
  }
  const gzip = isGzipMagic(head.length === 1 ? head[0]! : Buffer.concat(head));
  const body = prepend(head, chunks);
  let bytes: AsyncIterable<Buffer> = body;
  if (gzip) {
    const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK });
    void feedGunzip(body, gunzip); // errors surface on `gunzip`, caught by `guarded`
    bytes = keepBeforeError(gunzip);
  }
  return {
    stream: Readable.from(guarded(name, gzip, bytes), { objectMode: false }),
    gzip,
    get bytesRead() {
      return counter.bytesRead;
    },
    get fd() {
      const fd = raw instanceof ReadStream ? (raw as unknown as { fd: unknown }).fd : undefined;
      return typeof fd === 'number' ? fd : undefined;
    },
  };
}

/** Reads the first two bytes of a regular file to tell gzip from plain. */
async function fileKind(p: string): Promise<SourceKind> {
  const handle = await open(p, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return isGzipMagic(head.subarray(0, bytesRead)) ? 'gzip' : 'file';
  } finally {
    await handle.close();
  }
}

/**
 * A file source. Regular files are sniffed for gzip now; pipes and devices (e.g. `<(zcat …)`)
 * cannot be read twice, so they are reported as `file` and sniffed when opened.
 */
async function fileSpec(p: string, st: Stats): Promise<SourceSpec> {
  let kind: SourceKind = 'file';
  if (st.isFile()) {
    try {
      kind = await fileKind(p);
    } catch (err) {
      throw pathError(p, err);
    }
  }
  return {
    name: p,
    kind,
    bytes: st.isFile() ? st.size : 0,
    ...(st.isFile() ? { path: p } : {}),
    open: () => openDecoded(p, createReadStream(p, { highWaterMark: READ_CHUNK })),
  };
}

/** A directory entry that cannot be read, as a member that is skipped when read (see `SourceSpec.unreadable`). */
function unreadableSpec(p: string, reason: string, cause?: unknown): SourceSpec {
  const err = new InputError(`Cannot read "${p}": ${reason}.`, undefined, cause === undefined ? undefined : { cause });
  return { name: p, kind: 'file', bytes: 0, unreadable: err, open: () => Promise.reject(err) };
}

/** What a directory entry that is not a regular file or directory is, for the warning. */
function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The active file name and UTC backup time of a lumberjack backup name, or null. */
function parseRotatedName(base: string): { active: string; time: number } | null {
  const m = ROTATED.exec(base);
  if (m === null) return null;
  const n = (i: number): number => Number(m[i]);
  // `audit-<ts>.gz` is the compressed backup of `audit`, not of `audit.gz`.
  const ext = m[10] === undefined && m[9] === '.gz' ? '' : (m[9] ?? '');
  return { active: m[1]! + ext, time: Date.UTC(n(2), n(3) - 1, n(4), n(5), n(6), n(7), n(8)) };
}

/**
 * The member for directory entry `p`: a file source, an `unreadable` one, or null for a
 * subdirectory (directories are not read recursively).
 */
async function entrySpec(p: string, symlink: boolean): Promise<SourceSpec | null> {
  let st: Stats;
  try {
    st = await stat(p); // follows symlinks
  } catch (err) {
    const dangling = symlink && (err as NodeJS.ErrnoException).code === 'ENOENT';
    return unreadableSpec(p, dangling ? 'a symbolic link to a missing file' : describeFsError(err), err);
  }
  if (st.isDirectory()) return null;
  if (!st.isFile()) return unreadableSpec(p, specialKind(st));
  try {
    return await fileSpec(p, st);
  } catch (err) {
    return unreadableSpec(p, describeFsError((err as InputError).cause ?? err), err);
  }
}

/**
 * Groups a directory's regular, non-hidden files into rotation chains sorted by name. An entry
 * that cannot be read (a dangling symlink, a symlink loop, a FIFO, socket or device, a file that
 * cannot be opened) is a member marked `unreadable`; subdirectories are left out.
 */
async function directoryChains(dir: string): Promise<SourceChain[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw pathError(dir, err);
  }
  const groups = new Map<string, { rotated: { time: number; spec: SourceSpec }[]; active?: SourceSpec }>();
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const p = path.join(dir, entry.name);
    const spec = await entrySpec(p, entry.isSymbolicLink());
    if (spec === null) continue;
    const rotated = parseRotatedName(entry.name);
    const key = rotated ? rotated.active : entry.name;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { rotated: [] }));
    if (rotated) group.rotated.push({ time: rotated.time, spec });
    else group.active = spec;
  }
  if (groups.size === 0) {
    throw new InputError(`Directory "${dir}" has no files to read.`, 'Pass the audit log files or their directory.');
  }
  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...groups.keys()].sort(byName).map((key) => {
    const group = groups.get(key)!;
    group.rotated.sort((a, b) => a.time - b.time || byName(a.spec.name, b.spec.name));
    const members = group.rotated.map((r) => r.spec);
    if (group.active) members.push(group.active);
    return { name: path.join(dir, key), members };
  });
}

/**
 * Resolves command-line inputs to source chains, in argument order.
 *
 * - `[]` or `-`: standard input (`io.stdin`), one chain named `<stdin>`; gzip is sniffed.
 * - a file (or pipe/device): one chain of one member.
 * - a directory: every regular, non-hidden file in it (not recursive; symlinks followed), grouped
 *   into lumberjack rotation chains (`audit-2026-08-07T01-00-00.000.log`,
 *   `audit-2026-08-08T18-12-05.123.log.gz`, then `audit.log`), backups ordered by the UTC time in
 *   their name; other files are chains of one; chains sorted by name. An entry that cannot be read
 *   (dangling symlink, symlink loop, FIFO, a file that cannot be opened) is a member marked
 *   `unreadable`, skipped with a warning when read.
 *
 * Throws {@link InputError} naming the path when a path given is missing or unreadable, when a
 * directory has no files, or when `-` is given twice.
 */
export async function resolveInputs(paths: string[], io: { stdin: Readable }): Promise<SourceChain[]> {
  const chains: SourceChain[] = [];
  let stdinUsed = false;
  for (const p of paths.length === 0 ? ['-'] : paths) {
    if (p === '-') {
      if (stdinUsed) throw new InputError('Standard input ("-") is given more than once.');
      stdinUsed = true;
      const spec: SourceSpec = {
        name: STDIN_NAME,
        kind: 'stdin',
        bytes: 0,
        open: () => openDecoded(STDIN_NAME, io.stdin),
      };
      chains.push({ name: STDIN_NAME, members: [spec] });
      continue;
    }
    let st: Stats;
    try {
      st = await stat(p);
    } catch (err) {
      throw pathError(p, err);
    }
    if (st.isDirectory()) chains.push(...(await directoryChains(p)));
    else if (st.isFile() || st.isFIFO() || st.isCharacterDevice()) {
      chains.push({ name: p, members: [await fileSpec(p, st)] });
    } else throw new InputError(`Cannot read input "${p}": not a file or directory.`);
  }
  return chains;
}
