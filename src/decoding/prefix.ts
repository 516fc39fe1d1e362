/**
 * The text some collectors write before each JSON audit event on a line, removed before decoding
 * (reference `audit-formats.md` §6.3).
 */
import { isKlogLine } from './server-log.js';

/**
 * Removes a prefix written before the JSON: `hostname {…}` as `oc adm node-logs` prints, or
 * `2026-07-01T10:00:00.123Z {…}` as CloudWatch S3 exports (reference §6.3). Stripped when the
 * line does not start with `{`, its first `{` follows a space, and the prefix holds no `"` (so
 * pretty-printed JSON such as `  "user": {` stays as it is). A klog line of the API server's own
 * log also stays whole, so that it is counted as such: grpc's `failed to connect to {Addr: …`
 * has the shape of a prefix.
 */
export function stripPrefix(line: string): string {
  if (line.charCodeAt(0) === 123) return line; // '{'
  const brace = line.indexOf('{');
  if (brace < 1 || line.charCodeAt(brace - 1) !== 32) return line; // ' '
  const quote = line.indexOf('"');
  return (quote !== -1 && quote < brace) || isKlogLine(line) ? line : line.slice(brace);
}
