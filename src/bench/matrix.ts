/**
 * The benchmark matrix of issue 26: cluster logs of growing cardinality (distinct objects per
 * minute, actors), a `RequestResponse` log and a 5× length log, each read by three tools, each run
 * in its own child process: `auditstorm analyze` (every detector and aggregate), the naive baseline
 * (readline + JSON.parse + Map group-by) and DuckDB (`read_ndjson` + two GROUP BYs, 2 threads).
 * Ratios are of the medians of runs taken in turns in the same session, so the rest of the
 * machine weighs on the three alike.
 */
import type { ClusterSpec, ClusterStats } from './cluster.js';
import { clusterLog } from './cluster.js';

/** What one child run reports: events counted, wall time (ms), CPU user+sys of the child over that time, every thread (µs; module loading before it excluded), the child's peak RSS (MB). */
export interface ChildResult {
  events: number;
  ms: number;
  cpuUs: number;
  maxRssMb: number;
  /** DuckDB only: update/patch events answered 409, summed over its per-object-minute counts. */
  conflicts?: number;
}

/** The tools measured on every log. */
export const TOOLS = ['auditstorm', 'naive', 'duckdb'] as const;
export type Tool = (typeof TOOLS)[number];

/** One log of the matrix: its name, what it varies, and its cluster. */
export interface Cell {
  name: string;
  what: string;
  spec: ClusterSpec;
}

/** Threads DuckDB may use (the project's machine has 2 cores). */
export const DUCKDB_THREADS = 2;

/** Targets of issue 26, on every log of the matrix. */
export const MATRIX_TARGETS = {
  /** auditstorm events/s ÷ naive events/s, at least. */
  minNaiveRatio: 4,
  /** auditstorm events/s ÷ DuckDB events/s, at least. */
  minDuckdbRatio: 1,
  /** CPU per event ÷ that of the lowest-cardinality log (`obj-1k`), at most. */
  maxCpuSpread: 1.5,
  /** Peak RSS (MB), at most. */
  maxRssMb: 256,
} as const;

const BASE = { seed: 26, minutes: 1, level: 'Metadata', bodyBytes: 3000 } as const;

/**
 * The cells at full size; `quick` scales every rate (nodes, namespaces, pods, requests) by 1/50
 * for a test-sized matrix of a few thousand events per log.
 */
export function matrixCells(quick: boolean): Cell[] {
  const cells: Cell[] = [
    { name: 'obj-1k', what: '~1,000 objects/min, 100 nodes', spec: { ...BASE, nodes: 100, namespaces: 50, podsPerMinute: 60, requestsPerMinute: 150_000 } },
    { name: 'obj-10k', what: '~10,000 objects/min (pod churn, Events)', spec: { ...BASE, nodes: 100, namespaces: 50, podsPerMinute: 1_100, requestsPerMinute: 150_000 } },
    { name: 'obj-100k', what: '~100,000 objects/min (pod churn, Events)', spec: { ...BASE, nodes: 100, namespaces: 50, podsPerMinute: 12_000, requestsPerMinute: 150_000 } },
    { name: 'actors-1k', what: '1,000 nodes, 100 namespaces', spec: { ...BASE, nodes: 1_000, namespaces: 100, podsPerMinute: 1_100, requestsPerMinute: 150_000 } },
    { name: 'actors-10k', what: '5,000 nodes, 5,000 namespaces', spec: { ...BASE, nodes: 5_000, namespaces: 5_000, podsPerMinute: 1_100, requestsPerMinute: 150_000 } },
    {
      name: 'rr-10k',
      what: 'obj-10k at RequestResponse, ~3 KB bodies',
      spec: { ...BASE, level: 'RequestResponse', nodes: 100, namespaces: 50, podsPerMinute: 1_100, requestsPerMinute: 60_000 },
    },
    { name: 'long-5x', what: 'obj-10k, 5× the length', spec: { ...BASE, minutes: 5, nodes: 100, namespaces: 50, podsPerMinute: 1_100, requestsPerMinute: 150_000 } },
  ];
  if (!quick) return cells;
  const q = (n: number, min: number): number => Math.max(min, Math.round(n / 50));
  return cells.map((c) => ({
    ...c,
    spec: {
      ...c.spec,
      nodes: q(c.spec.nodes, 2),
      namespaces: q(c.spec.namespaces, 2),
      podsPerMinute: q(c.spec.podsPerMinute, 1),
      requestsPerMinute: q(c.spec.requestsPerMinute, 100),
    },
  }));
}

/** One row of the matrix: the log's stats and each tool's median run. */
export interface MatrixRow {
  cell: string;
  what: string;
  log: ClusterStats;
  runs: number;
  /** Median of each tool's runs (by wall time; CPU and RSS are those runs' medians too). */
  median: Record<Tool, ChildResult>;
  /** auditstorm events/s ÷ naive events/s. */
  vsNaive: number;
  /** auditstorm events/s ÷ DuckDB events/s. */
  vsDuckdb: number;
  /** auditstorm CPU per event (µs). */
  cpuPerEventUs: number;
  /** `cpuPerEventUs` ÷ that of `obj-1k`. */
  cpuSpread: number;
  pass: { naive: boolean; duckdb: boolean; cpu: boolean; rss: boolean };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs the matrix: for each cell (or only `only`), generates (or reuses) its log in `dir`, then
 * `runs` rounds of the three tools in turn via `runChild(tool, file)`. `progress` gets a line per run.
 * Throws when a tool's event count differs from the generator's, or DuckDB's 409 count does.
 */
export async function runMatrix(opts: {
  dir: string;
  quick: boolean;
  runs: number;
  only?: string;
  runChild: (tool: Tool, file: string) => Promise<ChildResult>;
  progress: (line: string) => void;
}): Promise<MatrixRow[]> {
  const cells = matrixCells(opts.quick).filter((c) => opts.only === undefined || c.name === opts.only);
  if (cells.length === 0)
    throw new Error(
      `no cell named ${opts.only}; cells: ${matrixCells(false)
        .map((c) => c.name)
        .join(', ')}`,
    );
  const rows: Omit<MatrixRow, 'cpuSpread' | 'pass'>[] = [];
  for (const cell of cells) {
    const started = performance.now();
    const { file, stats } = await clusterLog(opts.dir, cell.spec);
    opts.progress(`${cell.name}: ${stats.events} events, ${(stats.bytes / 1e6).toFixed(0)} MB (${((performance.now() - started) / 1000).toFixed(1)} s to have it)`);
    const all: Record<Tool, ChildResult[]> = { auditstorm: [], naive: [], duckdb: [] };
    for (let r = 0; r < opts.runs; r++) {
      for (const tool of TOOLS) {
        const res = await opts.runChild(tool, file);
        if (res.events !== stats.events) throw new Error(`${cell.name}: ${tool} counted ${res.events} events, the generator wrote ${stats.events}`);
        if (tool === 'duckdb' && res.conflicts !== stats.conflicts)
          throw new Error(`${cell.name}: DuckDB counted ${res.conflicts} 409s on update/patch, the generator wrote ${stats.conflicts}`);
        all[tool].push(res);
        opts.progress(`  ${tool.padEnd(10)} ${(res.ms / 1000).toFixed(2)} s, ${(res.cpuUs / 1e6).toFixed(2)} s CPU, ${res.maxRssMb.toFixed(0)} MB`);
      }
    }
    const med = (rs: ChildResult[]): ChildResult => ({
      events: rs[0]!.events,
      ms: median(rs.map((r) => r.ms)),
      cpuUs: median(rs.map((r) => r.cpuUs)),
      maxRssMb: median(rs.map((r) => r.maxRssMb)),
    });
    const median3 = { auditstorm: med(all.auditstorm), naive: med(all.naive), duckdb: med(all.duckdb) };
    rows.push({
      cell: cell.name,
      what: cell.what,
      log: stats,
      runs: opts.runs,
      median: median3,
      vsNaive: median3.naive.ms / median3.auditstorm.ms,
      vsDuckdb: median3.duckdb.ms / median3.auditstorm.ms,
      cpuPerEventUs: median3.auditstorm.cpuUs / stats.events,
    });
  }
  const lowest = rows.find((r) => r.cell === 'obj-1k')?.cpuPerEventUs ?? Math.min(...rows.map((r) => r.cpuPerEventUs));
  return rows.map((r) => {
    const cpuSpread = r.cpuPerEventUs / lowest;
    return {
      ...r,
      cpuSpread,
      pass: {
        naive: r.vsNaive >= MATRIX_TARGETS.minNaiveRatio,
        duckdb: r.vsDuckdb >= MATRIX_TARGETS.minDuckdbRatio,
        cpu: cpuSpread <= MATRIX_TARGETS.maxCpuSpread,
        rss: r.median.auditstorm.maxRssMb <= MATRIX_TARGETS.maxRssMb,
      },
    };
  });
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** The matrix as a Markdown table (one row per log; the last four columns are the targets). */
export function matrixTable(rows: readonly MatrixRow[]): string {
  const ok = (b: boolean): string => (b ? 'pass' : '**FAIL**');
  const head = [
    'log',
    'events',
    'MB',
    'objects/min',
    'actors',
    'auditstorm events/s',
    'CPU µs/event',
    'peak RSS MB',
    'naive events/s',
    'DuckDB events/s',
    '× naive',
    '× DuckDB',
    `≥ ${MATRIX_TARGETS.minNaiveRatio}× naive`,
    `≥ ${MATRIX_TARGETS.minDuckdbRatio}× DuckDB`,
    `CPU/event ≤ ${MATRIX_TARGETS.maxCpuSpread}× obj-1k`,
    `RSS ≤ ${MATRIX_TARGETS.maxRssMb} MB`,
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) {
    const rate = (c: ChildResult): string => fmt(c.events / (c.ms / 1000));
    lines.push(
      `| ${[
        `${r.cell} (${r.what})`,
        fmt(r.log.events),
        fmt(r.log.bytes / 1e6),
        fmt(r.log.distinctObjectsPerMinute),
        fmt(r.log.actors),
        rate(r.median.auditstorm),
        fmt(r.cpuPerEventUs, 1),
        fmt(r.median.auditstorm.maxRssMb),
        rate(r.median.naive),
        rate(r.median.duckdb),
        `${fmt(r.vsNaive, 2)}×`,
        `${fmt(r.vsDuckdb, 2)}×`,
        ok(r.pass.naive),
        ok(r.pass.duckdb),
        `${ok(r.pass.cpu)} (${fmt(r.cpuSpread, 2)}×)`,
        ok(r.pass.rss),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The DuckDB run, in this process: `read_ndjson` of `file` with the columns the report needs into a
 * temporary table, then GROUP BY verb/resource/code and, per object and minute, the count of 409s
 * among update/patch. {@link DUCKDB_THREADS} threads. `events` is the sum of the first GROUP BY's counts.
 */
export async function duckdbRun(file: string): Promise<ChildResult> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const cpu0 = process.resourceUsage();
  const started = performance.now();
  const db = await DuckDBInstance.create(':memory:', { threads: String(DUCKDB_THREADS) });
  const con = await db.connect();
  const path = file.replaceAll("'", "''");
  await con.run(`CREATE TEMP TABLE ev AS
    SELECT verb, objectRef.resource AS resource, objectRef.namespace AS namespace, objectRef.name AS name,
           objectRef.subresource AS subresource, responseStatus.code AS code, stageTimestamp AS ts,
           "user".username AS username, auditID, stage
    FROM read_ndjson('${path}', columns = {
      verb: 'VARCHAR', auditID: 'VARCHAR', stage: 'VARCHAR', stageTimestamp: 'TIMESTAMP',
      objectRef: 'STRUCT(resource VARCHAR, namespace VARCHAR, name VARCHAR, subresource VARCHAR)',
      responseStatus: 'STRUCT(code INTEGER)', "user": 'STRUCT(username VARCHAR)'
    })`);
  const groups = await con.runAndReadAll('SELECT verb, resource, code, count(*) AS n FROM ev GROUP BY verb, resource, code');
  const events = groups.getRows().reduce((sum, row) => sum + Number(row[3]), 0);
  const per = await con.runAndReadAll(`SELECT resource, namespace, name, subresource, date_trunc('minute', ts) AS minute, count(*) AS n
    FROM ev WHERE verb IN ('update', 'patch') AND code = 409 GROUP BY ALL`);
  const conflicts = per.getRows().reduce((sum, row) => sum + Number(row[5]), 0);
  const ms = performance.now() - started;
  con.closeSync();
  const u = process.resourceUsage();
  const cpuUs = u.userCPUTime + u.systemCPUTime - (cpu0.userCPUTime + cpu0.systemCPUTime);
  return { events, ms, cpuUs, maxRssMb: u.maxRSS / 1024, conflicts };
}
