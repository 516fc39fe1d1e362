/**
 * Seeded random numbers for the simulator (mulberry32; written here so the simulator shares no
 * code with src/generator). Deterministic for a given seed.
 */
export class SimRng {
  private s: number;
  /** `seed`: any integer; equal seeds give equal sequences. */
  constructor(seed: number) {
    this.s = (seed * 0x9e3779b1) >>> 0 || 1;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** One element of a non-empty array. */
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T;
  }
  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }
  /** Lower-case alphanumeric string of length `n` (pod-name style suffixes). */
  suffix(n: number): string {
    const abc = 'bcdfghjklmnpqrstvwxz2456789';
    let out = '';
    for (let i = 0; i < n; i++) out += abc[Math.floor(this.next() * abc.length)];
    return out;
  }
  /** A random RFC 4122 version-4 UUID (auditIDs, uids), from four 32-bit draws. */
  uuid(): string {
    const h = (x: number) => x.toString(16).padStart(8, '0');
    const a = h((this.next() * 4294967296) >>> 0);
    const b = h((this.next() * 4294967296) >>> 0);
    const c = h((this.next() * 4294967296) >>> 0);
    const d = h((this.next() * 4294967296) >>> 0);
    const variant = '89ab'[parseInt(c[0] as string, 16) & 3] as string;
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4, 8)}${d}`;
  }
}
