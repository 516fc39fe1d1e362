/**
 * Seeded pseudo-random numbers for the fixture generator.
 *
 * The generator must give byte-identical output for the same seed, so nothing in it may call
 * `Math.random`, `Date.now` or `crypto.randomUUID`: every random choice comes from an {@link Rng}.
 * The core is sfc32 (Chris Doty-Humphrey's Small Fast Counter, 128-bit state), seeded through
 * the cyrb128 string hash. 128 bits of state matter: audit IDs are built from the stream, and
 * independent sub-streams ({@link Rng.fork}) must not overlap the way 32-bit generators
 * (mulberry32) do after a few hundred thousand draws.
 */

/** A deterministic random source. All ranges are documented per method. */
export interface Rng {
  /** The string this stream was seeded from (seed plus fork labels); for debugging. */
  readonly key: string;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** Uniform float in [min, max). */
  uniform(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T;
  /** An index into `weights`, chosen with probability proportional to its weight. */
  weighted(weights: readonly number[]): number;
  /** Exponentially distributed float with the given mean (inter-arrival times of a Poisson process). */
  exponential(mean: number): number;
  /** Normally distributed float (Box–Muller). */
  normal(mean: number, sd: number): number;
  /** RFC 4122 version-4 UUID, lower case, built from this stream. */
  uuid(): string;
  /** `n` lower-case hex digits. */
  hex(n: number): string;
  /**
   * `n` characters of the alphabet Kubernetes uses for generated name suffixes
   * (`kubernetes/apimachinery` `pkg/util/rand/rand.go`, `alphanums = "bcdfghjklmnpqrstvwxz2456789"`),
   * e.g. the `abcde` in pod `web-7d9c5b8f4-abcde`.
   */
  nameSuffix(n: number): string;
  /**
   * An independent stream derived from this one's seed and `label`. Forking does not consume
   * from the parent, so adding a fork never shifts other streams.
   */
  fork(label: string): Rng;
}

const K8S_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** cyrb128: a fast 128-bit string hash, used only to expand a seed into sfc32's state. */
function cyrb128(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32 step function over a 128-bit state; returns unsigned 32-bit integers. */
function sfc32(seed: [number, number, number, number]): () => number {
  let [a, b, c, d] = seed;
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
}

/**
 * Create a seeded random stream. The same `seed` always yields the same sequence, on every
 * platform (only 32-bit integer arithmetic and `Math.log`/`Math.cos`/`Math.sqrt` are used).
 */
export function createRng(seed: number | string): Rng {
  const key = String(seed);
  const raw = sfc32(cyrb128(key));
  for (let i = 0; i < 16; i++) raw(); // let the counter mix the hashed seed

  const next = (): number => raw() / 4294967296;
  const hex = (n: number): string => {
    let s = '';
    while (s.length < n) s += raw().toString(16).padStart(8, '0');
    return s.slice(0, n);
  };

  const rng: Rng = {
    key,
    next,
    uint32: raw,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    uniform: (min, max) => min + next() * (max - min),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick() from an empty array');
      return items[Math.floor(next() * items.length)] as T;
    },
    weighted: (weights) => {
      const total = weights.reduce((s, w) => s + w, 0);
      let x = next() * total;
      for (let i = 0; i < weights.length; i++) {
        x -= weights[i] ?? 0;
        if (x < 0) return i;
      }
      return weights.length - 1;
    },
    exponential: (mean) => -Math.log(1 - next()) * mean,
    normal: (mean, sd) => {
      const u = 1 - next(); // (0, 1]: log is finite
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    uuid: () => {
      const h = hex(32).split('');
      h[12] = '4'; // version 4
      h[16] = '89ab'[parseInt(h[16] ?? '0', 16) & 3] ?? '8'; // variant 10xx
      const s = h.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
    hex,
    nameSuffix: (n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += K8S_ALPHANUMS[Math.floor(next() * K8S_ALPHANUMS.length)];
      return s;
    },
    fork: (label) => createRng(`${key}/${label}`),
  };
  return rng;
}
