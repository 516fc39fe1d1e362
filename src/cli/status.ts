/**
 * `auditstorm objects FILE|-` and `auditstorm crd FILE|-`: status of captured objects, and the
 * status contract of CRDs (`src/status/`). Same report model, renderers, `--format`, `-o`,
 * `--fail-on` and exit codes as `analyze`: 0 done, 1 a finding at or above `--fail-on`, 2 usage
 * or input error (the message names the file and the line).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describeFsError, InputError, UsageError } from '../errors.js';
import { parseDuration } from '../duration.js';
import { formatFromPath, isFormat, renderReport, type Format } from '../report/index.js';
import { SEVERITIES, type Severity } from '../report/schema.js';
import { decodeInput } from '../status/input.js';
import type { StatusInput } from '../status/report.js';
import { helpFor, type CliIO } from './io.js';
import { checkOutDirs, exitCodeFor, type Guarded } from './output.js';

/** `auditstorm objects --help`. */
export const OBJECTS_HELP = `auditstorm objects FILE|- [options]

Read kubectl get <kind> -A -o json (or -o yaml; a List or one object) and judge each object's
status: metadata.generation vs status.observedGeneration (missing, behind, ahead, not an
integer), conditions against metav1.Condition, conditions changing on many objects at once,
objects whose readiness condition has been False for long. Prints a table like
kubectl get -o custom-columns=NAME,GEN,OBS_GEN,READY,REASON.

Options:
  --now TIME            Clock for ages (RFC 3339); default: the newest timestamp in the input
  --stuck-after D       Readiness False this long is "stuck" (default 30m)
  --churn-window D      A condition changed within D of the clock counts as churn (default 1m)
  --churn-min-objects N Objects needed for condition-churn (default 5)
  --fail-on SEV         Exit 1 when a finding has this severity or higher
  --format F            text, json, markdown or html on stdout (default text)
  -o, --out FILE        Also write the report to FILE (.txt, .json, .md, .html; repeatable)
  --no-color, -q/--quiet

Examples:
  kubectl get appdeployments -A -o json | auditstorm objects -
  auditstorm objects rollouts.yaml --now 2026-08-08T18:00:00Z --fail-on medium

Exit codes: 0 done, 1 a finding at or above --fail-on, 2 usage or input error.
`;

/** `auditstorm crd --help`. */
export const CRD_HELP = `auditstorm crd FILE|- [options]

Check the status contract of each served version of the CustomResourceDefinitions in FILE
(YAML, multi-document, or JSON; a List is fine): the status subresource, status.conditions as a
list-map of metav1.Condition keyed by type, status.observedGeneration (integer, minimum 0),
spec fields that read as commands, and server-side-apply list markers.

Options:
  --fail-on SEV         Exit 1 when a finding has this severity or higher
  --format F            text, json, markdown or html on stdout (default text)
  -o, --out FILE        Also write the report to FILE (.txt, .json, .md, .html; repeatable)
  --no-color, -q/--quiet

Examples:
  kubectl get crd appdeployments.example.com -o yaml | auditstorm crd -
  auditstorm crd config/crd/bases/example.com_appdeployments.yaml --format markdown
  kubectl get crd -o yaml | auditstorm crd -              (every CRD of the cluster)

Exit codes: 0 done, 1 a finding at or above --fail-on, 2 usage or input error.
`;

interface StatusArgs {
  path?: string;
  format: Format;
  outs: { path: string; format: Format }[];
  failOn?: Severity;
  now?: string;
  quiet: boolean;
  /** Write to stdout: no `-o`, or `--format` given with it and not taken by an `-o` file with no known extension. */
  stdout?: boolean;
  options: Record<string, number>;
}

function parseStatusArgs(cmd: 'objects' | 'crd', argv: readonly string[]): StatusArgs {
  const hint = `run \`auditstorm ${cmd} --help\` for usage`;
  const a: StatusArgs = { format: 'text', outs: [], quiet: false, options: {} };
  const paths: string[] = [];
  const outPaths: string[] = [];
  let formatGiven = false;
  for (let i = 0; i < argv.length; i++) {
    let flag = argv[i]!;
    let value: string | undefined;
    const eq = flag.startsWith('--') ? flag.indexOf('=') : -1;
    if (eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    const need = (): string => {
      if (value !== undefined) return value;
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag}: needs a value`, hint);
      return v;
    };
    if (flag === '--') {
      paths.push(...argv.slice(i + 1));
      break;
    } else if (flag === '-' || !flag.startsWith('-')) paths.push(flag);
    else if (flag === '--format') {
      const f = need();
      if (!isFormat(f)) throw new UsageError(`--format: expected text, json, markdown or html, got "${f}"`, hint);
      a.format = f;
      formatGiven = true;
    } else if (flag === '-o' || flag === '--out') outPaths.push(need());
    else if (flag === '--fail-on') {
      const s = need().toLowerCase();
      if (!(SEVERITIES as readonly string[]).includes(s)) throw new UsageError(`--fail-on: expected one of ${SEVERITIES.join(', ')}, got "${s}"`, hint);
      a.failOn = s as Severity;
    } else if (flag === '--no-color') {
      /* text output here carries no colour */
    } else if (flag === '-q' || flag === '--quiet') a.quiet = true;
    else if (cmd === 'objects' && flag === '--now') {
      const v = need();
      if (!/^\d{4}-\d\d-\d\dT/.test(v) || !Number.isFinite(Date.parse(v))) throw new UsageError(`--now: expected an RFC 3339 time such as 2026-08-08T18:00:00Z, got "${v}"`, hint);
      a.now = v;
    } else if (cmd === 'objects' && flag === '--stuck-after') a.options['stuckAfterMs'] = parseDuration(need(), '--stuck-after');
    else if (cmd === 'objects' && flag === '--churn-window') a.options['churnWindowMs'] = parseDuration(need(), '--churn-window');
    else if (cmd === 'objects' && flag === '--churn-min-objects') {
      const v = need();
      if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--churn-min-objects: expected a whole number > 0, got "${v}"`, hint);
      a.options['churnMinObjects'] = Number(v);
    } else throw new UsageError(`unknown option ${flag} for ${cmd}`, hint);
  }
  if (paths.length !== 1) throw new UsageError(`${cmd} takes one input, a file or - for stdin (got ${paths.length})`, hint);
  a.path = paths[0]!;
  // As for analyze: the format from the extension, else --format (text if none): `-o /dev/null`.
  a.outs = outPaths.map((p) => ({ path: p, format: formatFromPath(p) ?? a.format }));
  // As for analyze: a --format that an -o file with no known extension takes is not for stdout.
  a.stdout = a.outs.length === 0 || (formatGiven && outPaths.every((p) => formatFromPath(p) !== undefined));
  return a;
}

async function readInput(path: string, io: CliIO): Promise<StatusInput> {
  if (path === '-') {
    if (io.isTTY.stdin) throw new UsageError('stdin ("-") is a terminal', 'pipe kubectl get … -o json into it, or give a file');
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
    const buf = Buffer.concat(chunks);
    return { name: '-', text: decodeInput(buf, '-'), bytes: buf.length, kind: 'stdin' };
  }
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    throw new InputError(`${path}: cannot read: ${describeFsError(e)}`);
  }
  return { name: path, text: decodeInput(buf, path), bytes: buf.length, kind: 'file' };
}

/**
 * Run `auditstorm objects` or `auditstorm crd`.
 * @param cmd which command
 * @param argv the arguments after the command word
 * @returns 0, or 1 when a finding is at or above `--fail-on`
 * @throws UsageError / InputError (exit 2 in `main`)
 */
export async function runStatus(cmd: 'objects' | 'crd', argv: readonly string[], io: CliIO, out: Guarded, err: Guarded): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    await out.write(helpFor(cmd === 'objects' ? OBJECTS_HELP : CRD_HELP, io.program));
    return 0;
  }
  const args = parseStatusArgs(cmd, argv);
  await checkOutDirs(args.outs.map((o) => o.path));
  const input = await readInput(args.path!, io);
  const { crdReport, objectsReport } = await import('../status/report.js');
  const generatedAt = io.now().toISOString();
  const report = cmd === 'objects' ? objectsReport(input, args.options, args.now === undefined ? null : Date.parse(args.now), generatedAt) : crdReport(input, {}, generatedAt);
  if (report.input.badLines > 0 && !args.quiet) await err.write(`auditstorm: warning: ${report.input.badLines} item(s) of ${input.name} skipped (see the report)\n`);
  for (const o of args.outs) {
    try {
      await writeFile(o.path, renderReport(report, o.format));
    } catch (e) {
      throw new UsageError(`--out ${o.path}: cannot write: ${describeFsError(e)}`);
    }
  }
  if (args.stdout === true) await out.write(renderReport(report, args.format));
  else if (!args.quiet) await err.write(`auditstorm: wrote ${args.outs.map((o) => o.path).join(', ')}: ${report.findings.length} finding(s)\n`);
  return exitCodeFor(report, args.failOn);
}
