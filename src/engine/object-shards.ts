/**
 * The detectors of an engine sharded by object key (ARCHITECTURE.md, "Sharding by object key"),
 * in one thread: a detector whose meta says `byObject` gets one instance per shard, fed the
 * records of the objects `objectShardKey` puts there, and, for `objects+cross`, one more instance
 * for the state that spans objects (roll-ups); every other detector keeps one instance fed every
 * record. Before a record reaches a shard, every instance of its detector is advanced to the
 * record's time (the step barrier), so all judge the boundaries the one instance would, in the
 * same order: the shards, then the cross instance. The findings the shards emit at one barrier
 * are put in the order of the states that emitted them (`ShardPlacement.birth`), the order one
 * instance iterating its states would have emitted them in.
 */
import type { RequestRecord } from '../decoding/record.js';
import type { Finding } from '../report/schema.js';
import type { Detector, DetectorContext, DetectorInstance, ShardPlacement } from '../detectors/types.js';
import { objectShardKey, shardOf } from './shard.js';

/** How the engine makes one instance: `placement` absent for a detector that is not sharded. */
export type MakeInstance = (
  detector: Detector,
  options: unknown,
  out: { emit: DetectorContext<unknown>['emit']; note: DetectorContext<unknown>['note'] },
  placement: ShardPlacement | undefined,
) => DetectorInstance;

/** One detector's instances. */
interface Slot {
  /** Allowlist rules it obeys (`Allowlist.scopeFor`). */
  readonly scope: number;
  /** The instance of a detector that is not sharded; null when sharded. */
  readonly one: DetectorInstance | null;
  /** One instance per shard; empty when not sharded. */
  readonly shards: DetectorInstance[];
  readonly cross: DetectorInstance | null;
  /** `stepMs` of its options (NaN when it has none: advanced at every record). */
  readonly stepMs: number;
  /** The step the instances were last advanced into. */
  boundary: number;
}

/** A finding held while the shards are judged at one barrier. */
interface Held {
  finding: Finding;
  birth: number;
  note: boolean;
}

/** The detectors of an engine with `shards` ≥ 1 (see the file header). */
export class ObjectShards {
  private readonly slots: Slot[];
  private holding = false;
  private readonly held: Held[] = [];
  private births = 0;

  /**
   * @param detectors as `EngineOptions.detectors`
   * @param scopes per detector, the allowlist rules it obeys
   * @param shards object shards (≥ 1)
   * @param findings, notes where emitted findings go (the engine's arrays)
   */
  constructor(
    detectors: ReadonlyArray<{ detector: Detector; options: unknown }>,
    scopes: readonly number[],
    private readonly shards: number,
    make: MakeInstance,
    private readonly findings: Finding[],
    private readonly notes: Finding[],
  ) {
    const out = {
      emit: (f: Finding, birth = 0): void => this.out(f, birth, false),
      note: (f: Finding, birth = 0): void => this.out(f, birth, true),
    };
    this.slots = detectors.map(({ detector, options }, i) => {
      const scope = scopes[i] as number;
      const stepMs = Number((options as { stepMs?: unknown } | null)?.stepMs ?? Number.NaN);
      const by = detector.meta.byObject;
      if (by === undefined) return { scope, one: make(detector, options, out, undefined), shards: [], cross: null, stepMs, boundary: -Infinity };
      const shared = new Map<string, unknown>();
      const placement = (role: ShardPlacement['role']): ShardPlacement => ({
        role,
        shared: <T>(name: string, makeShared: () => T): T => {
          if (!shared.has(name)) shared.set(name, makeShared());
          return shared.get(name) as T;
        },
        birth: () => ++this.births,
      });
      const instances = Array.from({ length: shards }, () => make(detector, options, out, placement('objects')));
      const cross = by === 'objects+cross' ? make(detector, options, out, placement('cross')) : null;
      return { scope, one: null, shards: instances, cross, stepMs, boundary: -Infinity };
    });
  }

  /** One counted record (after filters), with its allowlist mask (0: none). */
  feed(r: RequestRecord, allowed: number): void {
    let shard = -1;
    for (const s of this.slots) {
      if ((allowed & s.scope) !== 0) continue;
      let d = s.one;
      if (d === null) {
        this.moveTo(s, r.ts);
        if (shard < 0) shard = shardOf(objectShardKey(r.object), this.shards);
        d = s.shards[shard] as DetectorInstance;
      }
      if (allowed !== 0 && d.onAllowlisted !== undefined) d.onAllowlisted(r);
      else d.onRecord(r);
    }
  }

  /** Stream time is `nowMs` without a record (see `Engine.advance`). */
  advance(nowMs: number): void {
    for (const s of this.slots) {
      if (s.one !== null) s.one.advance(nowMs);
      else this.moveTo(s, nowMs);
    }
  }

  /** End of input: the last step judged on every shard, then each shard closes what is open. */
  finish(): void {
    for (const s of this.slots) {
      if (s.one !== null) {
        s.one.finish();
        continue;
      }
      this.barrier(s, (d) => d.settle?.());
      this.barrier(s, (d) => d.finish());
    }
  }

  /** Per detector (in order), the keys its instances hold state for, summed. */
  stateSizes(): number[] {
    return this.slots.map((s) => [s.one, ...s.shards, s.cross].reduce((n, d) => n + (d?.stateSize?.() ?? 0), 0));
  }

  /** Advance every instance of `s` to `nowMs` when that starts a new step of its clock. */
  private moveTo(s: Slot, nowMs: number): void {
    if (!Number.isNaN(s.stepMs)) {
      const b = Math.floor(nowMs / s.stepMs);
      if (b <= s.boundary) return;
      s.boundary = b;
    }
    this.barrier(s, (d) => d.advance(nowMs));
  }

  /** `step` on every shard of `s`, their findings put in birth order, then on its cross instance. */
  private barrier(s: Slot, step: (d: DetectorInstance) => void): void {
    this.holding = true;
    for (const d of s.shards) step(d);
    this.holding = false;
    const held = this.held.sort((a, b) => a.birth - b.birth);
    for (const h of held) (h.note ? this.notes : this.findings).push(h.finding);
    held.length = 0;
    if (s.cross !== null) step(s.cross);
  }

  private out(finding: Finding, birth: number, note: boolean): void {
    if (this.holding) this.held.push({ finding, birth, note });
    else (note ? this.notes : this.findings).push(finding);
  }
}
