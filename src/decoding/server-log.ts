/**
 * Lines of kube-apiserver's own log found among audit events. With `--audit-log-path=-` the API
 * server writes audit events to stdout and its log to stderr, and `kubectl logs kube-apiserver-…`
 * gives both, interleaved. Such lines are not audit events, and not damage either: they are
 * counted apart from bad lines (`input.skipped.logLines`).
 *
 * Shapes (k8s.io/klog and k8s.io/component-base/logs):
 * - klog text: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`, L one of I W E F, e.g.
 *   `I1205 17:11:57.123456       1 controller.go:615] quota admission added evaluator for: leases`;
 * - `--logging-format=json`: `{"ts":1733419917123.456,"caller":"app/server.go:167","msg":"…","v":0}`.
 */

/** The klog header: severity, month and day, time with microseconds, thread id, `file:line] `. */
const KLOG_HEADER = /^[IWEF](0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01]) \d\d:\d\d:\d\d\.\d{6} +\d+ [^\s\]]+:\d+\] /;

/** Whether `line` is a klog text line (see the module comment). */
export function isKlogLine(line: string): boolean {
  const c = line.charCodeAt(0);
  // I W E F: a cheap test before the expression, as every line that is not JSON comes here.
  return (c === 73 || c === 87 || c === 69 || c === 70) && KLOG_HEADER.test(line);
}

/** Whether a parsed JSON value is a line of component-base's JSON log (`ts` number, `msg` string, no `kind`). */
export function isJsonLogRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v['ts'] === 'number' && typeof v['msg'] === 'string' && v['kind'] === undefined && v['auditID'] === undefined;
}
