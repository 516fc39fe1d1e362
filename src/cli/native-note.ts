/**
 * The one-time note that the native line scanner was not built. npm hides the output of install
 * scripts, so the install's own warning is seldom seen: the first run of each version says it
 * once on stderr, then leaves a marker file in the user's cache directory
 * (`$XDG_CACHE_HOME/auditstorm/`, else `~/.cache/auditstorm/`) so later runs stay quiet.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The note, one line. */
export const NATIVE_NOTE =
  'auditstorm: note: the native line scanner (native/scan.cc) was not built at install (it needs a C++ compiler and node-gyp): ' +
  'every line is read in JavaScript, with the same results, about 1.7 times slower on large JSON-lines files; ' +
  'with g++ or clang installed, `npm rebuild -g auditstorm` builds it. Said once per version.\n';

/**
 * The note if this version has not said it yet on this account, else null. Marks it said; when
 * the cache directory cannot be written (a read-only home), the note is said every run rather
 * than never; with neither `XDG_CACHE_HOME` nor `HOME` set, it is not said.
 *
 * @param env the environment (`XDG_CACHE_HOME`, `HOME`)
 * @param version the package version (each version says it once)
 */
export async function nativeNoteOnce(env: Readonly<Record<string, string | undefined>>, version: string): Promise<string | null> {
  const base = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : env.HOME ? join(env.HOME, '.cache') : null;
  if (base === null) return null; // no home to remember it in: an environment of its own (a test, a sandbox)
  const dir = join(base, 'auditstorm');
  try {
    await mkdir(dir, { recursive: true });
    // `wx`: fails when the marker exists, so two runs at once say it at most twice.
    await writeFile(join(dir, `native-scanner-note-${version}`), 'said\n', { flag: 'wx' });
    return NATIVE_NOTE;
  } catch (e) {
    return (e as { code?: string }).code === 'EEXIST' ? null : NATIVE_NOTE;
  }
}
