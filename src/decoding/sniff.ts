/**
 * Telling users what a rejected input looked like, and how to convert it.
 *
 * Used only when none of a source's first units (lines, JSON values, YAML documents) is an audit
 * event, so clarity beats speed here. Shapes that are read (EventList, arrays, YAML, legacy text,
 * cloud wrappers) are still described, for when their content is not audit events.
 * Formats and their converters: reference `audit-formats.md` §1.6 (EventList), §2 (legacy
 * text), §6.2–6.4 (GKE, EKS, AKS wrappers).
 */
import { decodeObject, recognizeShape } from './decode.js';

/** A guess at an input's format. */
export interface InputGuess {
  /** What the input looks like, e.g. `a pretty-printed (multi-line) JSON audit event`. */
  readonly what: string;
  /** What to do, often a `jq` command with `FILE` standing for the input. */
  readonly hint: string;
}

const LEGACY_MARK = ' AUDIT: id="';
const POLICY_KIND = /^kind:\s*["']?Policy["']?\s*$/;
const YAML_KEY = /^[A-Za-z_@"'][^\s:]*:(\s|$)/;
const JSON_LINES_HINT = 'auditstorm reads kube-apiserver audit logs: one JSON audit.k8s.io Event per line (--audit-log-format=json).';

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True when a good part of the text is control characters or invalid UTF-8 (U+FFFD). */
function looksBinary(sample: string): boolean {
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) odd++;
  }
  return odd * 10 > sample.length;
}

function isYaml(texts: readonly string[]): boolean {
  const first = texts.find((t) => !t.startsWith('#'));
  return first !== undefined && (first.startsWith('---') || YAML_KEY.test(first));
}

/** Guess for a JSON value that spans all the kept lines (a pretty-printed document). */
function guessDocument(doc: unknown): InputGuess | undefined {
  if (Array.isArray(doc)) {
    return { what: 'a single JSON array', hint: "Write one element per line: jq -c '.[]' FILE" };
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  const shape = recognizeShape(doc);
  if (shape) return { what: `${shape.name}, pretty-printed`, hint: shape.hint };
  // `doc` was parsed for this guess alone, so decodeObject may complete it in place.
  return decodeObject(doc).ok
    ? { what: 'a pretty-printed (multi-line) JSON audit event', hint: 'Write one event per line: jq -c . FILE' }
    : { what: 'a pretty-printed (multi-line) JSON document', hint: `${JSON_LINES_HINT} jq -c . FILE compacts JSON.` };
}

/**
 * Guesses what an input is from its first non-blank lines (as delivered by `splitLines`), none
 * of which decoded to an audit event. `overlongLines` is how many lines were too long to keep.
 * Recognises binary data, HTML/XML, the legacy text format, JSON wrappers (EventList, GKE, EKS,
 * AKS, OpenShift ViaQ, OTLP) one per line or pretty-printed, a JSON array, pretty-printed JSON,
 * and YAML. Never throws.
 */
export function describeInput(texts: readonly string[], overlongLines: number): InputGuess {
  const first = texts[0];
  if (first === undefined) {
    return overlongLines > 0
      ? {
          what: 'only lines longer than the maximum line length',
          hint: 'It may be binary or one huge JSON document; raise maxLineLength if these are real events.',
        }
      : { what: 'nothing but blank lines', hint: JSON_LINES_HINT };
  }
  if (looksBinary(texts.join('\n').slice(0, 4096))) {
    return {
      what: 'binary data',
      hint: 'If it is compressed with something other than gzip (zstd, bzip2, xz, zip), decompress it first.',
    };
  }
  if (first.trimStart().startsWith('<')) {
    return { what: 'an HTML or XML document', hint: 'Download the raw audit log file, not a web or error page.' };
  }
  if (texts.some((t) => t.includes(LEGACY_MARK))) {
    return {
      what: 'the legacy text audit format (--audit-log-format=legacy)',
      hint: 'Its lines could not be parsed (see the reason); --audit-log-format=json (the default) gives complete events.',
    };
  }
  const line = tryParse(first);
  if (Array.isArray(line)) {
    return { what: 'JSON arrays, one per line', hint: "Write one element per line: jq -c '.[]' FILE" };
  }
  const shape = recognizeShape(line);
  if (shape) return { what: shape.name, hint: shape.hint };
  if (line === undefined) {
    const guess = guessDocument(tryParse(texts.join('\n')));
    if (guess) return guess;
    const opening = first.trim();
    if (opening === '{' || opening === '[') {
      return {
        what: 'pretty-printed (multi-line) JSON',
        hint: opening === '[' ? "Write one element per line: jq -c '.[]' FILE" : 'Write one document per line: jq -c . FILE',
      };
    }
    if (isYaml(texts) && texts.some((t) => POLICY_KIND.test(t))) {
      return {
        what: 'a YAML audit Policy (the rules for what to log), not an audit log',
        hint: 'Pass the log that kube-apiserver writes (--audit-log-path), not its --audit-policy-file.',
      };
    }
    if (isYaml(texts)) {
      return { what: 'YAML', hint: "Convert it to one JSON event per line, e.g. yq -o=json -I=0 '.' FILE" };
    }
  }
  return { what: 'JSON or text that is not audit events', hint: JSON_LINES_HINT };
}
