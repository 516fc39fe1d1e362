/**
 * The one place where defaults, the config file and flags meet. Precedence, lowest first:
 * core defaults (applied later by `analyze`) ← config file ← flags. A list flag (`-n`, `--user`,
 * …) replaces the config file's list rather than adding to it.
 */
import { AllowRuleSchema } from '../engine/allowlist.js';
import { INPUT_FORMATS } from '../decoding/formats/detect.js';
import { readFile as fsReadFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError, describeFsError, UsageError } from '../errors.js';
import type { AnalyzeOptionsInput } from '../options.js';
import type { Detector } from '../detectors/types.js';
import { formatFromPath, type Format } from '../report/formats.js';
import { parseCodes, type CodeItem } from '../report/codes.js';
import { SeveritySchema, type Severity } from '../report/schema.js';
import { splitList, type ParsedArgs } from './args.js';
import { RESOURCE_CONFLICTS, resourceConflictsOptions } from '../metrics/options.js';
import { durationProblem, formatDuration, timeBoundProblem, tryParseDuration } from '../duration.js';

/** Id of the detector that `--window`, `--step`, `--min-conflicts`, `--min-conflict-ratio` tune. */
export const CONFLICT_STORM = 'conflict-storm';

const StringList = z.union([z.string(), z.array(z.string())], {
  error: 'expected a string or a list of strings',
});

/** A number is accepted here only to be rejected with "has no unit (did you mean 60s?)". */
const DurationText = z.union([z.string(), z.number()], { error: 'expected a duration such as 60s' });

/**
 * Schema of the config file (YAML or JSON). Keys mirror the long flag names in camelCase;
 * `detectors` holds per-detector options keyed by detector id, each validated by that
 * detector's own schema. Unknown keys are errors.
 */
export const ConfigFileSchema = z
  .object({
    since: z.string().optional(),
    until: z.string().optional(),
    namespace: StringList.optional(),
    user: StringList.optional(),
    resource: StringList.optional(),
    verb: StringList.optional(),
    /** `--code`: HTTP statuses or classes (`409`, `4xx`) whose findings are shown. */
    code: z.union([StringList, z.number().int(), z.array(z.union([z.string(), z.number().int()]))]).optional(),
    failOn: SeveritySchema.optional(),
    top: z.number().int().positive().optional(),
    groupFindings: z.number().int().nonnegative().optional(),
    maxLineLength: z.number().int().positive().optional(),
    threads: z.number().int().nonnegative().max(64).optional(),
    /** Duration text (`5s`) for how far lines may be out of order (`reorderWindowMs`). */
    reorderWindow: DurationText.optional(),
    /** `--input-format`: `auto`, `jsonl`, `json`, `yaml` or `legacy`. */
    inputFormat: z.enum(INPUT_FORMATS).optional(),
    /** Duration text (`60s`, `1m`) for `detectors.conflict-storm.windowMs`. */
    window: DurationText.optional(),
    /** Duration text (`10s`) for `detectors.conflict-storm.stepMs`. */
    step: DurationText.optional(),
    /** `detectors.conflict-storm.minConflicts`, as `--min-conflicts`. */
    minConflicts: z.number().optional(),
    /** `detectors.conflict-storm.minConflictRatio`, as `--min-conflict-ratio`. */
    minConflictRatio: z.number().optional(),
    detectors: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    /** Extra allowlist rules (`{ name, users, userAgents, namespaces, resources, verbs }`). */
    allowlist: z.array(AllowRuleSchema).optional(),
    /** `false` drops the built-in allowlist (node leases, leader election, kubelet node status, events). */
    defaultAllowlist: z.boolean().optional(),
  })
  .strict();

/** A validated config file. */
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** Where one report goes besides stdout. */
export interface OutFile {
  path: string;
  format: Format;
}

/** How results are presented: everything `main` needs besides the analysis options. */
export interface OutputOptions {
  /** Format of stdout. `text` unless `--format` was given. */
  format: Format;
  /**
   * Whether the report goes to stdout: false only when there are `--out` files and `--format`
   * was not given (then `main` prints a one-line summary to stderr instead).
   */
  stdout: boolean;
  /** `--out` files in the order given, format from the extension (else `--format`, else text). */
  outs: OutFile[];
  /** `--code`: show only findings about these HTTP statuses or classes (`src/report/codes.ts`); empty: all. */
  codes: CodeItem[];
  /** Colour on stdout (see {@link useColor}). Files never get colour. */
  color: boolean;
  /** Exit 1 when a finding is at or above this severity. */
  failOn?: Severity;
  /** Self-overwriting progress line on stderr (see {@link useProgress}). */
  progress: boolean;
  /** `--quiet`: nothing on stderr but errors. */
  quiet: boolean;
}

/** Everything `createOptions` produces. */
export interface CliOptions {
  analyze: AnalyzeOptionsInput;
  output: OutputOptions;
}

/** The terminal facts colour and progress depend on. */
export interface TermInfo {
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/** Reads a text file; rejects with a Node error (with `code`) when it cannot. */
export type ReadFileFn = (path: string) => Promise<string>;

const defaultReadFile: ReadFileFn = (path) => fsReadFile(path, 'utf8');

/**
 * Decide whether stdout gets colour (no-color.org): only when stdout is a terminal, `NO_COLOR`
 * is unset or empty, `--no-color` was not given, and `FORCE_COLOR` is not `0`/`false`.
 * `FORCE_COLOR` never turns colour on for a non-terminal.
 *
 * @param term whether stdout is a TTY, and the environment
 * @param noColorFlag `--no-color` was given
 * @returns true for colour
 */
export function useColor(term: TermInfo, noColorFlag: boolean): boolean {
  if (noColorFlag || !term.stdoutIsTTY) return false;
  const noColor = term.env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  const force = term.env['FORCE_COLOR'];
  if (force === '0' || force === 'false') return false;
  return true;
}

/**
 * Decide whether to show the progress line: only when stderr is a terminal and not `--quiet`.
 *
 * @param term whether stderr is a TTY
 * @param quiet `--quiet` was given
 */
export function useProgress(term: TermInfo, quiet: boolean): boolean {
  return term.stderrIsTTY && !quiet;
}

/** Extra inputs of {@link createOptions}, all optional. */
export interface CreateOptionsContext {
  /** Terminal facts for colour and progress; default: not a terminal, empty environment. */
  term?: TermInfo;
  /**
   * Detectors whose schemas validate `detectors.<id>` and the detection flags; default: the
   * registry (`src/detectors/registry.ts`), loaded only when needed.
   */
  detectors?: readonly Detector[];
}

/**
 * Build the analysis options and the output settings from parsed flags and the config file.
 * Detector options are validated here, so mistakes are reported against the file or the flag
 * that caused them; `analyze` validates them again.
 *
 * @param argv parsed command-line arguments (`parseArgs`)
 * @param readFile reads the `--config` file (injectable for tests)
 * @param ctx terminal facts and detector list (see {@link CreateOptionsContext})
 * @returns `analyze`: input for `analyze()`; `output`: formats, files, colour, fail-on, progress
 * @throws ConfigError when the config file cannot be read, is not valid YAML/JSON, has unknown
 *   keys or wrong values; the message starts with the file path and names the field, e.g.
 *   `config.yaml: detectors.conflict-storm.minConflicts: expected number, received string`
 * @throws UsageError for bad flag values (`--window abc`, `--since yesterday`, `--code 40x`, the
 *   same `--out` path twice)
 */
export async function createOptions(argv: ParsedArgs, readFile: ReadFileFn = defaultReadFile, ctx: CreateOptionsContext = {}): Promise<CliOptions> {
  const term = ctx.term ?? { stdoutIsTTY: false, stderrIsTTY: false, env: {} };
  const file = argv.config;
  const config = file === undefined ? {} : await loadConfig(file, readFile);
  const cfgErr = (field: string, reason: string) => new ConfigError(`${file}: ${field}: ${reason}`);

  // --- filters: flags replace the config's values -------------------------------------------
  const since = pickTimeBound(argv.since, config.since, '--since', file);
  const until = pickTimeBound(argv.until, config.until, '--until', file);
  const namespaces = pickList(argv.namespace, config.namespace);
  const users = pickList(argv.user, config.user);
  const resources = pickList(argv.resource, config.resource);
  const verbs = pickList(argv.verb, config.verb);
  const failOn = argv.failOn ?? config.failOn;
  const top = argv.top ?? config.top;
  const maxLineLength = argv.maxLineLength ?? config.maxLineLength;
  const threads = argv.threads ?? config.threads;
  const inputFormat = argv.inputFormat ?? config.inputFormat;
  const codes = pickCodes(argv.code, config.code, file);

  // --- detectors ----------------------------------------------------------------------------
  const detectors: Record<string, Record<string, unknown>> = {};
  // `detectors.resource-conflicts` is read by `auditstorm metrics` (src/cli/metrics.ts), so one
  // config file serves both commands: checked here against its schema, not passed to the detectors.
  const { [RESOURCE_CONFLICTS]: metricsOptions, ...configDetectors } = config.detectors ?? {};
  if (metricsOptions !== undefined) {
    const r = resourceConflictsOptions.safeParse(metricsOptions);
    if (!r.success) throw new ConfigError(`${file}: ${formatIssue(r.error.issues[0] as z.core.$ZodIssue, ['detectors', RESOURCE_CONFLICTS])}`);
  }
  for (const [id, opts] of Object.entries(configDetectors)) detectors[id] = { ...opts };
  const cs: Record<string, unknown> = { ...(detectors[CONFLICT_STORM] ?? {}) };
  /** Which option of conflict-storm came from which flag, for error messages. */
  const fromFlag = new Map<string, string>();

  if (config.window !== undefined) {
    if (cs['windowMs'] !== undefined) {
      throw cfgErr('window', `also set as detectors.${CONFLICT_STORM}.windowMs; keep one`);
    }
    cs['windowMs'] = configDuration(String(config.window), file as string, 'window');
  }
  if (config.step !== undefined) {
    if (cs['stepMs'] !== undefined) {
      throw cfgErr('step', `also set as detectors.${CONFLICT_STORM}.stepMs; keep one`);
    }
    cs['stepMs'] = configDuration(String(config.step), file as string, 'step');
  }
  for (const key of ['minConflicts', 'minConflictRatio'] as const) {
    if (config[key] === undefined) continue;
    if (cs[key] !== undefined) throw cfgErr(key, `also set as detectors.${CONFLICT_STORM}.${key}; keep one`);
    cs[key] = config[key];
  }
  if (argv.window !== undefined) {
    cs['windowMs'] = flagDuration(argv.window, '--window');
    fromFlag.set('windowMs', `--window ${argv.window}`);
  }
  if (argv.step !== undefined) {
    cs['stepMs'] = flagDuration(argv.step, '--step');
    fromFlag.set('stepMs', `--step ${argv.step}`);
  }
  if (argv.minConflicts !== undefined) {
    cs['minConflicts'] = argv.minConflicts;
    fromFlag.set('minConflicts', `--min-conflicts ${argv.minConflicts}`);
  }
  if (argv.minConflictRatio !== undefined) {
    cs['minConflictRatio'] = argv.minConflictRatio;
    fromFlag.set('minConflictRatio', `--min-conflict-ratio ${argv.minConflictRatio}`);
  }
  if (Object.keys(cs).length > 0) detectors[CONFLICT_STORM] = cs;

  if (Object.keys(detectors).length > 0) {
    const known = ctx.detectors ?? (await import('../detectors/registry.js')).DETECTORS;
    validateDetectors(configDetectors, detectors, known, file, fromFlag);
  }

  // --- outputs ------------------------------------------------------------------------------
  const outs: OutFile[] = [];
  const seen = new Set<string>();
  /** `--format` went to an `--out` file with no known extension, not to stdout. */
  let formatTaken = false;
  for (const path of argv.out) {
    if (path === '') throw new UsageError('--out: empty file name');
    if (seen.has(path)) throw new UsageError(`--out ${path}: given twice`);
    seen.add(path);
    // A name with no known extension (/dev/null, `report`) is written in --format (ndjson: the
    // final report as JSON), and that --format no longer asks for the report on stdout.
    const named = formatFromPath(path);
    const format: Format = named ?? (argv.format === undefined ? 'text' : argv.format === 'ndjson' ? 'json' : argv.format);
    if (named === undefined && argv.format !== undefined && argv.format !== 'ndjson') formatTaken = true;
    outs.push({ path, format });
  }

  const analyze: AnalyzeOptionsInput = {
    inputs: argv.paths,
    namespaces,
    users,
    resources,
    verbs,
    detectors,
  };
  if (since !== undefined) analyze.since = since;
  if (until !== undefined) analyze.until = until;
  if (failOn !== undefined) analyze.failOn = failOn;
  if (top !== undefined) analyze.top = top;
  if (config.groupFindings !== undefined) analyze.groupFindings = config.groupFindings;
  if (maxLineLength !== undefined) analyze.maxLineLength = maxLineLength;
  if (threads !== undefined) analyze.threads = threads;
  if (argv.reorderWindow !== undefined) analyze.reorderWindowMs = flagDuration(argv.reorderWindow, '--reorder-window');
  else if (config.reorderWindow !== undefined) {
    analyze.reorderWindowMs = configDuration(String(config.reorderWindow), file as string, 'reorderWindow');
  }
  if (inputFormat !== undefined) analyze.inputFormat = inputFormat;
  if (config.allowlist !== undefined) analyze.allowlist = config.allowlist;
  if (config.defaultAllowlist !== undefined) analyze.defaultAllowlist = config.defaultAllowlist;

  if (argv.format === 'ndjson' && (argv.command ?? 'analyze') === 'analyze') {
    throw new UsageError('--format ndjson is for watch and serve (one JSON object per alert)', 'analyze writes one report: use --format json');
  }
  const output: OutputOptions = {
    // watch/serve --format ndjson: alerts as JSON lines (src/cli/live.ts), the final report as JSON.
    format: argv.format === 'ndjson' ? 'json' : (argv.format ?? 'text'),
    stdout: (argv.format !== undefined && !formatTaken) || outs.length === 0,
    outs,
    codes,
    color: useColor(term, argv.noColor),
    progress: useProgress(term, argv.quiet),
    quiet: argv.quiet,
  };
  if (failOn !== undefined) output.failOn = failOn;
  return { analyze, output };
}

/**
 * How far the aliases of a config file may expand (the yaml package's `maxAliasCount`: alias
 * nodes resolved, each weighted by its size). A config file repeats a detector block or two; an
 * alias bomb expands to billions.
 */
const MAX_CONFIG_ALIASES = 100;

/**
 * Read, parse and validate a config file.
 *
 * @param path the `--config` path, used as given in messages
 * @param readFile file reader
 * @returns the validated config (an empty file is `{}`)
 * @throws ConfigError `<path>: cannot read: …`, `<path>:<line>:<col>: <YAML problem>`,
 *   `<path>: its YAML aliases expand to more than 100 nodes …` (see {@link MAX_CONFIG_ALIASES}),
 *   `<path>: nested too deeply to read …`,
 *   `<path>: <field>: <reason>`
 */
export async function loadConfig(path: string, readFile: ReadFileFn = defaultReadFile): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path);
  } catch (err) {
    throw new ConfigError(`${path}: cannot read config file: ${describeFsError(err)}`, undefined, { cause: err });
  }
  // Loaded here, not with the CLI: most runs have no config file, and `yaml` is slow to load.
  const { parseDocument } = await import('yaml');
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError?.code === 'RESOURCE_EXHAUSTION') {
    // The yaml package composes collections by recursion and reports a stack overflow so; where it ran out says nothing.
    throw new ConfigError(`${path}: nested too deeply to read (collections inside collections, hundreds deep)`, 'the config file must be YAML or JSON');
  }
  if (yamlError) {
    const pos = yamlError.linePos?.[0];
    const where = pos ? `${path}:${pos.line}:${pos.col}` : path;
    const reason = (yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${where}: ${reason}`, 'the config file must be YAML or JSON');
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_CONFIG_ALIASES }) ?? {};
  } catch (err) {
    // yaml throws a ReferenceError when aliases expand past maxAliasCount (an alias bomb, "billion laughs").
    const reason =
      err instanceof ReferenceError && /alias/i.test(err.message)
        ? `its YAML aliases expand to more than ${MAX_CONFIG_ALIASES} nodes (anchors referencing anchors)`
        : err instanceof Error
          ? err.message
          : String(err);
    throw new ConfigError(`${path}: ${reason}`, 'the config file must be YAML or JSON; write repeated values out instead of nesting aliases', {
      cause: err,
    });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`${path}: expected a mapping of options (since, namespace, detectors, …), got ${kindOf(data)}`);
  }
  const parsed = ConfigFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new ConfigError(`${path}: ${formatIssue(parsed.error.issues[0] as z.core.$ZodIssue)}`, configHint(parsed.error.issues[0]));
  }
  return parsed.data;
}

function configHint(issue: z.core.$ZodIssue | undefined): string | undefined {
  if (issue?.code === 'unrecognized_keys' && issue.path.length === 0) {
    return `known keys: ${Object.keys(ConfigFileSchema.shape).join(', ')}`;
  }
  return undefined;
}

/**
 * One zod issue as `field.path: reason`, with zod's "Invalid input: " style prefixes dropped:
 * `detectors.conflict-storm.minConflicts: expected number, received string`.
 *
 * @param issue a zod issue
 * @param prefix path segments to put before the issue's own path
 */
export function formatIssue(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    const where = path.length > 0 ? `${formatPath(path)}: ` : '';
    return `${where}unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}`;
  }
  let reason = issue.message.replace(/^(Invalid input|Invalid option|Too small|Too big|Invalid string|Invalid number): /, '');
  if (issue.code === 'invalid_type' && issue.expected === 'int') reason = 'expected an integer';
  if (issue.code === 'invalid_type' && (issue.expected === 'record' || issue.expected === 'object')) {
    reason = reason.replace(/^expected (record|object)/, 'expected a mapping');
  }
  return path.length > 0 ? `${formatPath(path)}: ${reason}` : reason;
}

/** `['detectors', 'conflict-storm', 'x', 0]` → `detectors.conflict-storm.x[0]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function validateDetectors(
  fromConfig: Record<string, Record<string, unknown>>,
  merged: Record<string, Record<string, unknown>>,
  known: readonly Detector[],
  file: string | undefined,
  fromFlag: ReadonlyMap<string, string>,
): void {
  const byId = new Map(known.map((d) => [d.meta.id, d]));
  const ids = known.map((d) => d.meta.id).join(', ');
  // The config's own values first, so its mistakes are reported against the file.
  for (const [id, opts] of Object.entries(fromConfig)) {
    const det = byId.get(id);
    if (!det) throw new ConfigError(`${file}: detectors.${id}: unknown detector`, `known detectors: ${ids}`);
    const r = det.meta.optionsSchema.safeParse(opts);
    if (!r.success) {
      const issue = r.error.issues[0] as z.core.$ZodIssue;
      // A cross-field rule broken only together with a flag is the flag's problem, below.
      const key = issue.path[0];
      if (!(typeof key === 'string' && fromFlag.has(key))) {
        throw new ConfigError(`${file}: ${formatIssue(issue, ['detectors', id])}`);
      }
    }
  }
  for (const [id, opts] of Object.entries(merged)) {
    const det = byId.get(id);
    if (!det) continue; // only reachable for config ids, already rejected
    const r = det.meta.optionsSchema.safeParse(opts);
    if (r.success) continue;
    const issue = r.error.issues[0] as z.core.$ZodIssue;
    const key = issue.path[0];
    const flag = id === CONFLICT_STORM && typeof key === 'string' ? fromFlag.get(key) : undefined;
    const flags = id === CONFLICT_STORM ? [...fromFlag.values()] : [];
    let reason = formatIssue({ ...issue, path: issue.path.slice(1) });
    if (id === CONFLICT_STORM) {
      // Speak in flags: "--window must be a multiple of --step (10s)", not the option names.
      const given = opts;
      const defaults = det.meta.optionsSchema.safeParse({});
      const step = typeof given['stepMs'] === 'number' ? given['stepMs'] : defaults.success ? (defaults.data as Record<string, unknown>)['stepMs'] : undefined;
      reason = reason.replaceAll('windowMs', '--window').replaceAll('stepMs', typeof step === 'number' ? `--step (${formatDuration(step)})` : '--step');
    }
    const label = flag ?? flags.join(', ');
    if (label !== '') throw new UsageError(`${label}: ${reason}`);
    throw new ConfigError(`${file ? `${file}: ` : ''}${formatIssue(issue, ['detectors', id])}`);
  }
}

function pickTimeBound(flag: string | undefined, cfg: string | undefined, name: string, file: string | undefined): string | undefined {
  if (flag !== undefined) {
    const problem = timeBoundProblem(flag);
    if (problem) throw new UsageError(`${name}: ${problem}`, 'e.g. --since 2026-08-08T18:00:00Z or --since 15m');
    return flag;
  }
  if (cfg !== undefined) {
    const problem = timeBoundProblem(cfg);
    if (problem) throw new ConfigError(`${file}: ${name.slice(2)}: ${problem}`);
    return cfg;
  }
  return undefined;
}

function pickCodes(flag: readonly string[], cfg: string | number | readonly (string | number)[] | undefined, file: string | undefined): CodeItem[] {
  try {
    if (flag.length > 0) return parseCodes(flag);
    if (cfg === undefined) return [];
    return parseCodes(splitList((Array.isArray(cfg) ? cfg : [cfg]).map(String)));
  } catch (e) {
    const reason = (e as Error).message;
    if (flag.length > 0) throw new UsageError(`--code: ${reason}`, 'e.g. --code 409,429 or --code 4xx');
    throw new ConfigError(`${file}: code: ${reason}`);
  }
}

function pickList(flag: readonly string[], cfg: string | readonly string[] | undefined): string[] {
  if (flag.length > 0) return [...flag];
  if (cfg === undefined) return [];
  return splitList(typeof cfg === 'string' ? [cfg] : cfg);
}

function flagDuration(text: string, flag: string): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) {
    throw new UsageError(durationProblem(text, flag), 'use a number with a unit: ms, s, m, h or d (e.g. 90s, 15m, 1h30m)');
  }
  if (ms <= 0) throw new UsageError(`${flag}: must be longer than 0`);
  return ms;
}

function configDuration(text: string, file: string, field: string): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) throw new ConfigError(durationProblem(text, `${file}: ${field}`));
  if (ms <= 0) throw new ConfigError(`${file}: ${field}: must be longer than 0`);
  return ms;
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return `a ${typeof v}`;
}
