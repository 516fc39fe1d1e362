/**
 * Command-line grammar: the yargs definitions and their normalization into {@link ParsedArgs}.
 * Nothing here reads files or the environment; merging with the config file happens in
 * `./options.ts`. Flags have no yargs defaults on purpose, so that "not given" (undefined) can
 * be told apart and the config file can fill it.
 */
import yargs from 'yargs';
import type { Argv } from 'yargs';
import { UsageError } from '../errors.js';
import type { Format } from '../report/formats.js';
import { SEVERITIES, type Severity } from '../report/schema.js';
import { INPUT_FORMATS, type InputFormat } from '../decoding/formats/detect.js';

/** Formats accepted by `--format`, in help order (same as `FORMATS` in `src/report/formats.ts`). */
const FORMATS = ['text', 'json', 'markdown', 'html'] as const satisfies readonly Format[];

/** `--format` of `watch` and `serve` also takes `ndjson`: one JSON object per alert line. */
export type CliFormat = Format | 'ndjson';

/** Subcommands. */
export type Command = 'analyze' | 'watch' | 'serve';

/** Flags of `watch` and `serve` only (see `auditstorm watch --help`, `auditstorm serve --help`). */
export interface LiveArgs {
  /** `serve --listen HOST:PORT` (default `127.0.0.1:8080`). */
  listen?: string;
  /** `--token-file FILE`: the bearer token, read from a file (not argv, which `ps` shows). */
  tokenFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  maxBodyBytes?: number;
  metricsTop?: number;
  /** `serve --request-timeout DURATION`: duration text, checked by the serve command. */
  requestTimeout?: string;
  /** `watch FILE --from-start`: read what the file holds before following it. */
  fromStart: boolean;
}

/** Command-line arguments after parsing and normalization (no config file, no defaults). */
export interface ParsedArgs {
  /** The subcommand; absent for `analyze` (also when no command is given). */
  command?: Command;
  /** Input paths (files, directories, `-` for stdin); empty means stdin. */
  paths: string[];
  since?: string;
  until?: string;
  /** Repeated flags and comma lists, flattened; empty when not given. */
  namespace: string[];
  user: string[];
  resource: string[];
  verb: string[];
  /** `--code 409,429,2xx`: raw items, checked and parsed in `createOptions`; empty when not given. */
  code: string[];
  /** `--config FILE`. */
  config?: string;
  /** Raw duration text of `--window` / `--step` (parsed in `createOptions`). */
  window?: string;
  step?: string;
  /** Raw duration text of `--reorder-window`. */
  reorderWindow?: string;
  minConflicts?: number;
  minConflictRatio?: number;
  /** `--format`; undefined when not given (stdout then defaults to text). `ndjson` only for watch/serve. */
  format?: CliFormat;
  /** `-o/--out` paths, in order. */
  out: string[];
  failOn?: Severity;
  top?: number;
  maxLineLength?: number;
  /** `--threads`: worker threads for big JSON-lines files (0: none). */
  threads?: number;
  /** `--input-format`: how inputs are framed (`auto` detects per file). */
  inputFormat?: InputFormat;
  /** True when `--no-color` was given. */
  noColor: boolean;
  /** True when `--quiet` was given. */
  quiet: boolean;
  /** `--objects FILE` (analyze): a `kubectl get -o json` capture to join into storm findings. */
  objects?: string;
  /** Flags of `watch` and `serve`; absent for `analyze`. */
  live?: LiveArgs;
}

/** What parsing asked for: run an analysis, or print text (help, version) and exit 0. */
export type ParseOutcome = { kind: 'run'; args: ParsedArgs } | { kind: 'print'; text: string };

/** What {@link parseArgs} needs besides argv; all optional. */
export interface ParseSettings {
  /** Help wrap width in columns (default 80). */
  width?: number;
  /** Defaults shown in the help. */
  defaults?: HelpDefaults;
  /** The program's name in help and hints (default `auditstorm`; `kubectl auditstorm` as a plugin). */
  program?: string;
  /** `$SHELL`, for `completion` without a shell named (zsh when it names zsh, else bash). */
  shell?: string;
}

const GROUP_INPUT = 'Input:';
const GROUP_FILTERS = 'Filters:';
const GROUP_DETECTION = 'Detection:';
const GROUP_OUTPUT = 'Output:';
const GROUP_LIVE = 'Server:';

/** `--format` of `watch` and `serve`: how alerts are written (the final report follows it: text, or one JSON line). */
function liveFormatOption(y: Argv): Argv {
  return y.option('format', {
    group: GROUP_OUTPUT,
    type: 'string',
    // yargs adds these choices to the global option's (text, json, markdown, html); live modes
    // take text and ndjson only (checked in `src/cli/live.ts`).
    choices: ['ndjson'],
    requiresArg: true,
    describe: 'Alerts on stdout: text lines, or ndjson (one JSON object per alert, then {"type":"report"}); other formats with -o FILE',
    defaultDescription: 'text',
  });
}

/**
 * Defaults shown in `--help` (shown only: flags have no yargs defaults, see the module doc).
 * `main` fills them from the core and detector schemas so the help never drifts from them.
 */
export interface HelpDefaults {
  window?: string;
  step?: string;
  reorderWindow?: string;
  /** `--reorder-window`'s default in `watch` and `serve` (live modes default to a shorter one). */
  liveReorderWindow?: string;
  minConflicts?: number;
  minConflictRatio?: number;
  top?: number;
  maxLineLength?: number;
}

/** The program's name in help, messages and hints: `auditstorm`, or `kubectl auditstorm` as a kubectl plugin. */
export const PROGRAM = 'auditstorm';

/**
 * Which commands take each command-specific flag, for "an option of serve, not of analyze"
 * (every other flag is global: all commands take it).
 */
const FLAG_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  'max-line-length': ['analyze', 'watch'],
  threads: ['analyze'],
  objects: ['analyze'],
  'input-format': ['analyze', 'watch'],
  'fail-on': ['analyze', 'watch'],
  'from-start': ['watch'],
  listen: ['serve'],
  'token-file': ['serve'],
  'tls-cert': ['serve'],
  'tls-key': ['serve'],
  'tls-client-ca': ['serve'],
  'max-body-bytes': ['serve'],
  'metrics-top': ['serve'],
  'request-timeout': ['serve'],
};

type Shown = (v: string | number | undefined) => { defaultDescription?: string };

/**
 * Flags every command but `completion` takes, in help order: Input, Filters, Detection, Output.
 * Defined in each command's builder (not globally) so `completion --help` lists none of them,
 * and first, so a command's own flags join these groups after them.
 */
function sharedOptions(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  return y
    .option('config', {
      group: GROUP_INPUT,
      type: 'string',
      requiresArg: true,
      describe: 'Read options from a YAML or JSON file; flags override it',
    })
    .option('reorder-window', {
      group: GROUP_INPUT,
      type: 'string',
      requiresArg: true,
      describe: 'How far (a duration) lines may be out of time order and still be placed exactly; later ones are counted as late',
      ...shown(defaults.reorderWindow),
    })
    .option('since', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep requests at or after this time: RFC 3339, or a duration back from the end of the log (15m, 2h)',
    })
    .option('until', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep requests at or before this time (same forms as --since)',
    })
    .option('namespace', {
      alias: 'n',
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep only this namespace (repeatable, or a comma list)',
    })
    .option('user', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep only this user; * is a wildcard (system:serviceaccount:shop:*) (repeatable, comma list)',
    })
    .option('resource', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep only this resource: resource, resource/subresource, resource.group (repeatable, comma list)',
    })
    .option('verb', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe: 'Keep only this verb (repeatable, comma list)',
    })
    .option('code', {
      group: GROUP_FILTERS,
      type: 'string',
      requiresArg: true,
      describe:
        'Show only findings (and live alerts) about responses with these HTTP status codes: 409 (Conflict, AlreadyExists), ' +
        '429, 200 (hot loops, no-op writes, write fights), or a class such as 4xx (repeatable, comma list); the verb × resource × code ' +
        'table keeps only those codes. The detectors still see every request: a conflict share or a retry gap needs the successful writes too',
    })
    .option('window', {
      group: GROUP_DETECTION,
      type: 'string',
      requiresArg: true,
      describe: 'Conflict-storm sliding window (60s, 1m, 2m30s)',
      ...shown(defaults.window),
    })
    .option('step', {
      group: GROUP_DETECTION,
      type: 'string',
      requiresArg: true,
      describe: 'How often the window is evaluated; must divide --window',
      ...shown(defaults.step),
    })
    .option('min-conflicts', {
      group: GROUP_DETECTION,
      type: 'number',
      requiresArg: true,
      describe: 'Fewest 409 Conflicts in a window for a conflict storm',
      ...shown(defaults.minConflicts),
    })
    .option('min-conflict-ratio', {
      group: GROUP_DETECTION,
      type: 'number',
      requiresArg: true,
      describe: 'Smallest share (0..1) of write attempts in a window that must be 409 Conflicts',
      ...shown(defaults.minConflictRatio),
    })
    .option('format', {
      group: GROUP_OUTPUT,
      type: 'string',
      choices: FORMATS,
      requiresArg: true,
      describe: 'Format written to stdout, and to -o files whose name has no known extension',
      defaultDescription: 'text',
    })
    .option('out', {
      alias: 'o',
      group: GROUP_OUTPUT,
      type: 'string',
      requiresArg: true,
      describe:
        'Also write the report to FILE (repeatable), format from its extension: .txt, .json, .md, .html; ' +
        'any other name (/dev/null, report) gets --format (text when not given). ' +
        'With --out and no --format for stdout, stdout gets nothing and stderr a one-line summary',
    })
    .option('top', {
      group: GROUP_OUTPUT,
      type: 'number',
      requiresArg: true,
      describe: 'Rows in each top-N summary table',
      ...shown(defaults.top),
    })
    .option('no-color', {
      group: GROUP_OUTPUT,
      type: 'boolean',
      describe: 'No colours (also when NO_COLOR is set or stdout is not a terminal)',
    })
    .option('quiet', {
      alias: 'q',
      group: GROUP_OUTPUT,
      type: 'boolean',
      describe: 'No progress line and no summary on stderr',
    });
}

function maxLineLengthOption(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  return y.option('max-line-length', {
    group: GROUP_INPUT,
    type: 'number',
    requiresArg: true,
    describe: 'Longest line (or JSON value) accepted, in characters (bytes for ASCII text); longer ones are counted and skipped',
    ...shown(defaults.maxLineLength),
  });
}

function inputFormatOption(y: Argv): Argv {
  return y.option('input-format', {
    group: GROUP_INPUT,
    type: 'string',
    requiresArg: true,
    choices: INPUT_FORMATS,
    describe: 'How inputs are framed: detected per file, or JSON lines, JSON documents, YAML documents, legacy text',
    defaultDescription: 'auto',
  });
}

function failOnOption(y: Argv, when: string): Argv {
  return y.option('fail-on', {
    group: GROUP_OUTPUT,
    type: 'string',
    choices: SEVERITIES,
    coerce: (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v),
    requiresArg: true,
    describe: `Exit 1 ${when} when a finding has this severity or higher`,
  });
}

/** `analyze`'s own flags and examples (also those of the bare `$0 [paths..]`). */
function analyzeBuilder(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  const withInput = inputFormatOption(maxLineLengthOption(sharedOptions(y, shown, defaults), shown, defaults))
    .positional('paths', {
      type: 'string',
      array: true,
      describe: 'Audit log files (plain or .gz) or directories; "-" or nothing reads stdin',
    })
    .option('threads', {
      group: GROUP_INPUT,
      type: 'number',
      requiresArg: true,
      describe: 'Worker threads that decode JSON-lines files of 64 MB and more (0: read on one thread; default: cores − 1)',
    })
    .option('objects', {
      group: GROUP_INPUT,
      type: 'string',
      requiresArg: true,
      describe:
        'A kubectl get <kind> -A -o json (or -o yaml) capture, or - for stdin: storm findings on its objects say what the object showed (generation, observedGeneration, Ready and reason)',
    });
  return failOnOption(withInput, 'after the report')
    .example('$0 audit.log', 'Text report of one log')
    .example('$0 logs/ --since 2h', 'All logs in a directory, last 2h')
    .example('zcat a.log.gz | $0 -n shop', 'Read stdin; namespace shop only')
    .example('$0 a.log -o r.html -o r.json -o r.md', 'Write files; summary on stderr')
    .example('$0 a.log --code 409,429', 'Only findings about 409s and 429s')
    .example('$0 a.log --fail-on high -o /dev/null', 'CI: exit 1 on high or critical findings, no report')
    .example('$0 a.log --format json | jq', 'JSON for programs')
    .example('$0 a.log --config cfg.yaml', 'Settings from a file; flags override');
}

/**
 * The output flags of `metrics`, `objects` and `crd`, for shell completion only: `main` hands
 * those commands (and `diff`) to parsers of their own (src/cli/metrics.ts, status.ts, diff.ts)
 * before yargs sees them, so these builders serve `--get-yargs-completions` and nothing else.
 */
function ownOutputOptions(y: Argv): Argv {
  return failOnOption(y, 'after the report')
    .option('format', { group: GROUP_OUTPUT, type: 'string', choices: FORMATS, requiresArg: true, describe: 'Format written to stdout' })
    .option('out', { alias: 'o', group: GROUP_OUTPUT, type: 'string', requiresArg: true, describe: 'Also write the report to FILE' })
    .option('no-color', { group: GROUP_OUTPUT, type: 'boolean', describe: 'No colours' })
    .option('quiet', { alias: 'q', group: GROUP_OUTPUT, type: 'boolean', describe: 'Nothing on stderr but errors' });
}

/** `diff`'s flags for completion: the analysis flags (for log inputs), `--fail-on` and `--tolerance`. */
function diffCompletion(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  return failOnOption(sharedOptions(y, shown, defaults), 'when a new or worse finding').option('tolerance', {
    type: 'string',
    requiresArg: true,
    describe: 'Changes within this share count as the same (20% or 0.2)',
  });
}

/** `metrics`' flags for completion. */
function metricsCompletion(y: Argv): Argv {
  return ownOutputOptions(y)
    .option('interval', { type: 'string', requiresArg: true, describe: 'Time between consecutive scrapes' })
    .option('config', { type: 'string', requiresArg: true, describe: 'YAML or JSON config' });
}

/** `objects`' flags for completion. */
function objectsCompletion(y: Argv): Argv {
  return ownOutputOptions(y)
    .option('now', { type: 'string', requiresArg: true, describe: 'Clock for ages (RFC 3339)' })
    .option('stuck-after', { type: 'string', requiresArg: true, describe: 'Readiness False this long is stuck' })
    .option('churn-window', { type: 'string', requiresArg: true, describe: 'A condition changed within this window counts as churn' })
    .option('churn-min-objects', { type: 'number', requiresArg: true, describe: 'Objects needed for condition-churn' });
}

/** The help defaults of a live mode: its own `--reorder-window` default. */
function liveDefaults(defaults: HelpDefaults): HelpDefaults {
  return { ...defaults, reorderWindow: defaults.liveReorderWindow };
}

/** `watch`'s own flags and examples. */
function watchBuilder(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  const withInput = inputFormatOption(maxLineLengthOption(liveFormatOption(sharedOptions(y, shown, liveDefaults(defaults))), shown, defaults))
    .positional('paths', {
      type: 'string',
      array: true,
      describe: 'The active log file to follow (rotated and gzipped files are handled), or "-"/nothing for stdin',
    })
    .option('from-start', {
      group: GROUP_INPUT,
      type: 'boolean',
      describe: 'Read what the file already holds before following it (default: start at its end)',
    });
  return failOnOption(withInput, 'at the end of the stream (or on SIGINT/SIGTERM)')
    .example('tail -F /var/log/kubernetes/audit/audit.log | $0 watch', 'Alerts from a pipe')
    .example('$0 watch /var/log/kubernetes/audit/audit.log', 'Follow the file itself, across rotation')
    .example('kubectl logs -f -n kube-system kube-apiserver-cp1 | $0 watch --format ndjson', 'One JSON object per alert (needs --audit-log-path=-; klog lines are skipped)')
    .example('kubectl logs -n kube-system kube-apiserver-cp1 | $0 watch --fail-on high', 'CI: exit 1 if a high finding appeared');
}

/** `serve`'s own flags and examples. */
function serveBuilder(y: Argv, shown: Shown, defaults: HelpDefaults): Argv {
  return liveFormatOption(sharedOptions(y, shown, liveDefaults(defaults)))
    .option('listen', {
      group: GROUP_LIVE,
      type: 'string',
      requiresArg: true,
      describe: 'HOST:PORT to listen on (port 0 picks a free one; the bound address is printed on stderr, also with -q)',
      defaultDescription: '127.0.0.1:8080',
    })
    .option('token-file', {
      group: GROUP_LIVE,
      type: 'string',
      requiresArg: true,
      describe: 'Require Authorization: Bearer <the token in FILE> (every path but /healthz)',
    })
    .option('tls-cert', { group: GROUP_LIVE, type: 'string', requiresArg: true, describe: 'Serve HTTPS with this PEM certificate (chain)' })
    .option('tls-key', { group: GROUP_LIVE, type: 'string', requiresArg: true, describe: 'PEM private key of --tls-cert' })
    .option('tls-client-ca', {
      group: GROUP_LIVE,
      type: 'string',
      requiresArg: true,
      describe: 'Require client certificates signed by this PEM CA',
    })
    .option('max-body-bytes', {
      group: GROUP_LIVE,
      type: 'number',
      requiresArg: true,
      describe: 'Largest POST body, in bytes after decompression (413 above)',
      defaultDescription: String(64 * 1024 * 1024),
    })
    .option('metrics-top', {
      group: GROUP_LIVE,
      type: 'number',
      requiresArg: true,
      describe: 'Actors and objects listed in /metrics',
      defaultDescription: '10',
    })
    .option('request-timeout', {
      group: GROUP_LIVE,
      type: 'string',
      requiresArg: true,
      describe: 'Longest time (a duration) a client may take to send a whole request; slower ones get 408 and are disconnected',
      defaultDescription: '30s',
    })
    .example('$0 serve --listen 127.0.0.1:8080', 'Plain HTTP on loopback')
    .example('$0 serve --listen 127.0.0.1:0 -q', 'A free port; only the bound address on stderr')
    .example('$0 serve --listen 0.0.0.0:8443 --tls-cert s.crt --tls-key s.key --tls-client-ca ca.crt --token-file token', 'TLS, client certificates and a bearer token');
}

/**
 * Build the yargs parser. Exposed for tests and for printing help; use {@link parseArgs} to
 * parse. analyze, watch and serve take the shared flags ({@link sharedOptions}: config, reorder
 * window, filters, detection, output) and their own (see {@link FLAG_COMMANDS}); each command's
 * `--help` shows only the flags it takes, and its own examples.
 *
 * @param version string printed by `--version`
 * @param width help wrap width in columns (default 80)
 * @param defaults default values to show in the help
 * @param program the name in usage lines and examples (`auditstorm`, `kubectl auditstorm`)
 */
export function buildParser(version: string, width = 80, defaults: HelpDefaults = {}, program = PROGRAM): Argv {
  const shown: Shown = (v) => (v === undefined ? {} : { defaultDescription: String(v) });
  return yargs()
    .scriptName(program)
    .locale('en')
    .exitProcess(false)
    .fail(false)
    .strict()
    .parserConfiguration({
      // `--no-color` is an option of its own, not the negation of an unknown `--color`.
      'boolean-negation': false,
      // Keep paths after `--` (e.g. a file named `-x.log`).
      'populate--': true,
      // No camelCase twins: strict mode would name an unknown `--foo-bar` twice.
      'camel-case-expansion': false,
      // No flag has sub-keys: `--since.x=1` is an unknown flag, not an object passed to --since.
      'dot-notation': false,
    })
    .usage(
      `$0 [analyze] [paths..]\n$0 watch [PATH | -]\n$0 serve --listen HOST:PORT\n$0 completion bash|zsh\n\nFind conflict storms (controllers stuck in 409 retry loops) in kube-apiserver audit logs.`,
    )
    .command(['analyze [paths..]', '$0 [paths..]'], 'Analyze audit logs (the default command)', (y) => analyzeBuilder(y, shown, defaults))
    .command('watch [paths..]', 'Alert on storms while the log is written: stdin (a pipe) or one file, followed across rotation', (y) => watchBuilder(y, shown, defaults))
    .command('serve', "Receive the API server's audit webhook (EventList POSTs); /metrics, /healthz, /report, /report.html", (y) => serveBuilder(y, shown, defaults))
    .command('diff <before> <after>', `Compare two runs (JSON reports or logs): each finding fixed, new, better, same or worse; see \`${program} diff --help\``, (y) =>
      diffCompletion(y, shown, defaults),
    )
    .command('metrics <scrapes..>', `Read kube-apiserver /metrics scrapes: request rates, 409 and 429 shares, latency, APF; see \`${program} metrics --help\``, metricsCompletion)
    .command(
      'objects <file>',
      `Judge the status of objects from kubectl get -o json|yaml: observedGeneration, conditions, stuck objects; see \`${program} objects --help\``,
      objectsCompletion,
    )
    .command('crd <file>', `Check the status contract of CRDs: status subresource, conditions, observedGeneration; see \`${program} crd --help\``, ownOutputOptions)
    .command('publish <paths..>', `Fleet: publish audit events to NATS JetStream (stream AUDITSTORM); see \`${program} publish --help\``)
    .command('worker', `Fleet: analyze the stream's partitions, alert and checkpoint; see \`${program} worker --help\``)
    .command('report', `Fleet: the merged report of the workers' clusters; see \`${program} report --help\``)
    .command('completion [shell]', 'Print a shell completion script: bash or zsh', (y) =>
      y
        .positional('shell', { type: 'string', choices: ['bash', 'zsh'], describe: 'The shell (default: bash, or zsh when $SHELL is zsh)' })
        .example('$0 completion bash >> ~/.bashrc', 'Complete commands and flags in bash')
        .example('$0 completion zsh > "${fpath[1]}/_auditstorm"', 'In zsh'),
    )
    .version('version', 'Show the version, and whether the native line scanner is in use', version)
    .help('help', 'Show this help')
    .alias('help', 'h')
    .epilog(
      'Config file keys (YAML or JSON): since, until, namespace, user, resource, verb, code, failOn, top, ' +
        'maxLineLength, threads, reorderWindow, inputFormat, window, step, minConflicts, minConflictRatio, allowlist, defaultAllowlist, ' +
        'and detectors.<id>.<option> (e.g. detectors.hot-loop.minExcessWrites).\n' +
        'Exit codes: 0 success (watch and serve also on SIGINT/SIGTERM, after the final report), 1 a finding at or above --fail-on, 2 usage, config or input error.\n' +
        'Colour follows NO_COLOR and FORCE_COLOR=0 (no-color.org); progress is shown only on a terminal.',
    )
    .wrap(Math.max(60, Math.min(width, 120)));
}

/**
 * Parse command-line arguments.
 *
 * @param argv arguments after the program name (`process.argv.slice(2)`)
 * @param version text for `--version`
 * @param width help wrap width in columns
 * @param defaults default values shown in the help
 * @param settings the program's name (`kubectl auditstorm` as a plugin) and `$SHELL`
 * @returns `{ kind: 'print', text }` for `--help`, `--version`, `completion` (the script) and the
 *   shell's completion requests; otherwise the normalized arguments
 * @throws UsageError for unknown options (a flag of another command says which command takes
 *   it), missing option values, bad choices and values that are not numbers; the message is
 *   yargs' own (one line) unless said otherwise
 */
export async function parseArgs(
  argv: readonly string[],
  version: string,
  width = 80,
  defaults: HelpDefaults = {},
  settings: Pick<ParseSettings, 'program' | 'shell'> = {},
): Promise<ParseOutcome> {
  const program = settings.program ?? PROGRAM;
  const parser = buildParser(version, width, defaults, program);
  const command = ['watch', 'serve', 'completion'].includes(argv[0] ?? '') ? argv[0]! : 'analyze';
  const asksHelp = argv.some((a) => a === '--help' || a === '-h' || a === '--version');
  if (command === 'completion' && !asksHelp && !argv.includes(COMPLETION_KEY)) {
    return { kind: 'print', text: completionScript(argv.slice(1), settings.shell, program) };
  }
  let printed = '';
  let raw: Record<string, unknown>;
  try {
    // `auditstorm help` means --help (a file named help is still `./help`); yargs drops a lone
    // `-` (stdin), so it is carried through as a placeholder.
    // An explicit `analyze` runs as the default command it also is: yargs renders and caches the
    // whole help text (~50 ms) for every named command it runs, not for the default one.
    // (Not when a path after it would be read as a command: a file named `watch`.)
    const asDefault = argv[0] === 'analyze' && !['analyze', 'watch', 'serve', 'completion', 'help'].includes(argv[1] ?? '') && !asksHelp;
    const words = argv[0] === 'help' ? ['--help', ...argv.slice(1)] : asDefault ? argv.slice(1) : argv;
    const args = words.map((a) => (a === '-' ? STDIN_PLACEHOLDER : a));
    raw = await parser.parse(args, {}, (_err: unknown, _argv: unknown, output: string) => {
      printed = output;
    });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw otherCommandsFlag(msg, command, program) ?? new UsageError(oneLine(msg), `run \`${program}${command === 'analyze' ? '' : ` ${command}`} --help\` for usage`);
  }
  if (argv.includes(COMPLETION_KEY)) {
    // yargs offers one-letter aliases as `--n`: the flag is `-n`.
    const offered = printed
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (/^--\w$/.test(l) ? l.slice(1) : l));
    return { kind: 'print', text: offered.map((l) => `${l}\n`).join('') };
  }
  if (raw['help'] === true || raw['version'] === true) {
    return { kind: 'print', text: printed.endsWith('\n') ? printed : `${printed}\n` };
  }
  const restored = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, restoreDash(v)]));
  return { kind: 'run', args: normalize(restored) };
}

/** The flag yargs' completion scripts call the program with to ask for completions. */
const COMPLETION_KEY = '--get-yargs-completions';

/**
 * "--listen is an option of serve, not of analyze" for yargs' `Unknown argument: listen` when
 * the flag belongs to another command; null for a flag no command takes (a typo).
 */
function otherCommandsFlag(msg: string, command: string, program: string): UsageError | null {
  const m = /^Unknown arguments?: (.*)$/.exec(oneLine(msg));
  if (m === null) return null;
  for (const name of m[1]!.split(', ')) {
    const takers = FLAG_COMMANDS[name];
    if (takers === undefined || takers.includes(command)) continue;
    return new UsageError(`--${name} is an option of ${takers.join(' and ')}, not of ${command}`, `run \`${program} ${takers[0]} --help\` for its options`);
  }
  return null;
}

/**
 * `completion [bash|zsh]`: yargs' completion script for the shell named (else zsh when `$SHELL`
 * is zsh, else bash). The script calls `auditstorm --get-yargs-completions …`, which
 * {@link parseArgs} answers. yargs picks its template from `process.env.SHELL`, so that is set
 * to the shell asked for while the script is made, then put back.
 *
 * @throws UsageError for another shell, or more than one word
 */
function completionScript(words: readonly string[], envShell: string | undefined, program: string): string {
  const shell = words[0] ?? (envShell !== undefined && /zsh/.test(envShell) ? 'zsh' : 'bash');
  if ((shell !== 'bash' && shell !== 'zsh') || words.length > 1) {
    throw new UsageError(`completion ${words.join(' ')}: expected bash or zsh`, `e.g. ${program} completion bash >> ~/.bashrc`);
  }
  const saved = { SHELL: process.env.SHELL, ZSH_NAME: process.env.ZSH_NAME };
  process.env.SHELL = `/bin/${shell}`;
  delete process.env.ZSH_NAME;
  let script = '';
  try {
    // A kubectl plugin completes through kubectl; the script always names the program itself.
    void yargs()
      .scriptName(PROGRAM)
      .exitProcess(false)
      .completion('completion', false)
      .parse(['completion'], {}, (_e: unknown, _a: unknown, output: string) => {
        script = output;
      });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return script.endsWith('\n') ? script : `${script}\n`;
}

const STDIN_PLACEHOLDER = '\u0000stdin';

function restoreDash(v: unknown): unknown {
  if (v === STDIN_PLACEHOLDER) return '-';
  return Array.isArray(v) ? v.map(restoreDash) : v;
}

function oneLine(msg: string): string {
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}

/** Repeated flags become arrays in yargs; single-valued ones keep the last value given. */
function last(v: unknown): unknown {
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function str(v: unknown): string | undefined {
  const x = last(v);
  // A flag's value is a string, number or boolean ('dot-notation' is off, so never an object).
  return typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
}

function list(v: unknown): string[] {
  if (v === undefined) return [];
  const items = Array.isArray(v) ? v : [v];
  return splitList(items.map(String));
}

/** Flatten comma lists: `['a,b', 'c']` → `['a', 'b', 'c']` (trimmed, empties dropped). */
export function splitList(items: readonly string[]): string[] {
  return items
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function num(v: unknown, flag: string, kind: 'positive-int' | 'threads' | 'non-negative' | 'ratio'): number | undefined {
  const x = last(v);
  if (x === undefined) return undefined;
  const n = typeof x === 'number' ? x : Number(x);
  const ok =
    kind === 'positive-int'
      ? Number.isInteger(n) && n > 0
      : kind === 'threads'
        ? Number.isInteger(n) && n >= 0 && n <= 64
        : kind === 'ratio'
          ? Number.isFinite(n) && n >= 0 && n <= 1
          : Number.isFinite(n) && n >= 0;
  if (!ok) {
    const expected =
      kind === 'positive-int' ? 'a whole number > 0' : kind === 'threads' ? 'a whole number from 0 to 64' : kind === 'ratio' ? 'a number from 0 to 1' : 'a number ≥ 0';
    throw new UsageError(`${flag}: expected ${expected}`, 'run `auditstorm --help` for usage');
  }
  return n;
}

function normalize(raw: Record<string, unknown>): ParsedArgs {
  const positional: unknown[] = Array.isArray(raw['paths']) ? raw['paths'] : [];
  const afterDashes: unknown[] = Array.isArray(raw['--']) ? raw['--'] : [];
  const words = Array.isArray(raw['_']) ? raw['_'].map(String) : [];
  const command: Command = words[0] === 'watch' ? 'watch' : words[0] === 'serve' ? 'serve' : 'analyze';
  const args: ParsedArgs = {
    paths: [...positional, ...afterDashes].map(String),
    namespace: list(raw['namespace']),
    user: list(raw['user']),
    resource: list(raw['resource']),
    verb: list(raw['verb']),
    code: list(raw['code']),
    out: (raw['out'] === undefined ? [] : [raw['out']].flat()).map(String),
    noColor: last(raw['no-color']) === true,
    quiet: last(raw['quiet']) === true,
  };
  if (command !== 'analyze') {
    args.command = command;
    args.live = { fromStart: last(raw['from-start']) === true };
    normalizeLive(raw, args.live);
  }
  normalizeRest(raw, args);
  return args;
}

function normalizeLive(raw: Record<string, unknown>, live: LiveArgs): void {
  const listen = str(raw['listen']);
  if (listen !== undefined) live.listen = listen;
  const tokenFile = str(raw['token-file']);
  if (tokenFile !== undefined) live.tokenFile = tokenFile;
  const tlsCert = str(raw['tls-cert']);
  if (tlsCert !== undefined) live.tlsCert = tlsCert;
  const tlsKey = str(raw['tls-key']);
  if (tlsKey !== undefined) live.tlsKey = tlsKey;
  const tlsClientCa = str(raw['tls-client-ca']);
  if (tlsClientCa !== undefined) live.tlsClientCa = tlsClientCa;
  const maxBodyBytes = num(raw['max-body-bytes'], '--max-body-bytes', 'positive-int');
  if (maxBodyBytes !== undefined) live.maxBodyBytes = maxBodyBytes;
  const metricsTop = num(raw['metrics-top'], '--metrics-top', 'positive-int');
  if (metricsTop !== undefined) live.metricsTop = metricsTop;
  const requestTimeout = str(raw['request-timeout']);
  if (requestTimeout !== undefined) live.requestTimeout = requestTimeout;
}

function normalizeRest(raw: Record<string, unknown>, args: ParsedArgs): void {
  const since = str(raw['since']);
  if (since !== undefined) args.since = since;
  const until = str(raw['until']);
  if (until !== undefined) args.until = until;
  const config = str(raw['config']);
  if (config !== undefined) args.config = config;
  const window = str(raw['window']);
  if (window !== undefined) args.window = window;
  const step = str(raw['step']);
  if (step !== undefined) args.step = step;
  const reorderWindow = str(raw['reorder-window']);
  if (reorderWindow !== undefined) args.reorderWindow = reorderWindow;
  const minConflicts = num(raw['min-conflicts'], '--min-conflicts', 'positive-int');
  if (minConflicts !== undefined) args.minConflicts = minConflicts;
  const minConflictRatio = num(raw['min-conflict-ratio'], '--min-conflict-ratio', 'ratio');
  if (minConflictRatio !== undefined) args.minConflictRatio = minConflictRatio;
  const format = str(raw['format']);
  if (format !== undefined) args.format = format as CliFormat;
  const failOn = str(raw['fail-on']);
  if (failOn !== undefined) args.failOn = failOn as Severity;
  const top = num(raw['top'], '--top', 'positive-int');
  if (top !== undefined) args.top = top;
  const maxLineLength = num(raw['max-line-length'], '--max-line-length', 'positive-int');
  if (maxLineLength !== undefined) args.maxLineLength = maxLineLength;
  const threads = num(raw['threads'], '--threads', 'threads');
  if (threads !== undefined) args.threads = threads;
  const objects = str(raw['objects']);
  if (objects !== undefined) args.objects = objects;
  const inputFormat = str(raw['input-format']);
  if (inputFormat !== undefined) args.inputFormat = inputFormat as InputFormat;
}
