import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { Normalizer } from '../../src/decoding/normalize.js';
import { BadLineLog, readChain } from '../../src/ingest/read.js';
import { resolveInputs, STDIN_NAME } from '../../src/ingest/sources.js';
import { CONFLICT_EVENT, DEFAULT_READ, eventLine, readChains, readStdin, removeTempDirs, tempDir } from './helpers.js';

afterAll(removeTempDirs);

const NO_STDIN = { stdin: Readable.from([]) };

/** Resolves to the InputError a read throws (fails if it throws anything else or nothing). */
async function inputError(read: Promise<unknown>): Promise<InputError> {
  try {
    await read;
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

describe('readChain: chunking does not change the result', () => {
  const user = 'system:serviceaccount:shop:opérateur-日本';
  const input = Buffer.from(
    '\ufeff' +
      [
        eventLine({ auditID: 'e1', user: { username: user } }),
        `ip-10-0-1-2.ec2.internal ${eventLine({ auditID: 'e2', stage: 'RequestReceived' })}`,
        'this is not json',
        '',
        `2026-07-01T10:00:00.131002Z ${eventLine({ auditID: 'e2', verb: 'watch', userAgent: 'kubelet/v1.29.0 (linux/amd64) kubernetes/abc1234' })}`,
        `{"auditID":"overlong","pad":"${'p'.repeat(3000)}"}`,
        eventLine({ auditID: 'e3', requestURI: '/api/v1/namespaces/a/pods/b?fieldManager=m%C3%BCller&dryRun=All' }),
      ].join('\r\n'),
  );
  const opts = { maxLineLength: 2000, sniffLines: 10 };

  it('splits a multi-byte character across 7-byte chunks (the case under test)', () => {
    // A chunk that starts with a UTF-8 continuation byte (10xxxxxx) cuts a character in two.
    const cuts = [...input.keys()].filter((i) => i % 7 === 0 && (input[i]! & 0xc0) === 0x80);
    expect(cuts.length).toBeGreaterThan(0);
  });

  it('gives identical records and stats for chunks of 1, 7 and 4096 bytes', async () => {
    const one = await readStdin(input, opts, 1);
    const seven = await readStdin(input, opts, 7);
    const big = await readStdin(input, opts, 4096);
    expect(seven).toEqual(one);
    expect(big).toEqual(one);
    expect(one.stats).toEqual([
      {
        name: STDIN_NAME,
        kind: 'stdin',
        bytes: 0,
        bytesRead: input.length,
        lines: 7,
        events: 4,
        requests: 3,
        badLines: 1,
        overlongLines: 1,
        nonFinalStages: 1,
        format: 'jsonl',
        truncated: 0,
        truncatedRead: 0,
        skippedRecords: 0,
        logLines: 0,
      },
    ]);
    expect(one.bad).toEqual([
      { source: STDIN_NAME, line: 3, reason: expect.stringMatching(/^not JSON \(/) },
      { source: STDIN_NAME, line: 6, reason: 'line longer than 2000 characters (--max-line-length): skipped' },
    ]);
    expect(one.records.map((r) => [r.auditID, r.latencyMs, r.fieldManager, r.dryRun, r.isWrite])).toEqual([
      ['e1', 7.546, '', false, true],
      ['e2', -1, '', false, false],
      ['e3', 7.546, 'müller', true, false],
    ]);
    expect(one.records[0]!.actor.username).toBe(user);
    expect(one.records[0]!.actor.serviceAccount).toEqual({ namespace: 'shop', name: 'opérateur-日本' });
    expect(one.records[1]!.actor.userAgentProduct).toBe('kubelet');
  });
});

describe('gzip', () => {
  const text = `${eventLine({ auditID: 'g1' })}\n${eventLine({ auditID: 'g2', stage: 'Panic' })}\n`;

  it('detects gzip by magic bytes even when named .log, and counts raw bytes', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'audit.log');
    const gz = gzipSync(text);
    writeFileSync(file, gz);
    const chains = await resolveInputs([file], NO_STDIN);
    expect(chains).toHaveLength(1);
    expect(chains[0]!.members.map((m) => [m.name, m.kind, m.bytes])).toEqual([[file, 'gzip', gz.length]]);
    const r = await readChains(chains);
    expect(r.records.map((x) => [x.auditID, x.stage])).toEqual([
      ['g1', 'ResponseComplete'],
      ['g2', 'Panic'],
    ]);
    expect(r.stats[0]).toMatchObject({ kind: 'gzip', bytes: gz.length, bytesRead: gz.length, lines: 2, requests: 2 });
  });

  it('decompresses gzip on stdin, in tiny chunks', async () => {
    const r = await readStdin(gzipSync(text), DEFAULT_READ, 3);
    expect(r.records.map((x) => x.auditID)).toEqual(['g1', 'g2']);
    expect(r.stats[0]).toMatchObject({ kind: 'stdin', bytesRead: gzipSync(text).length, lines: 2 });
  });

  it('reports corrupt and truncated gzip as an InputError naming the file', async () => {
    const dir = tempDir();
    const corrupt = path.join(dir, 'corrupt.log.gz');
    writeFileSync(corrupt, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03]));
    const truncated = path.join(dir, 'truncated.log.gz');
    const whole = gzipSync(text.repeat(50));
    writeFileSync(truncated, whole.subarray(0, whole.length >> 1));
    for (const file of [corrupt, truncated]) {
      const err = await inputError(resolveInputs([file], NO_STDIN).then(readChains));
      expect(err.message).toMatch(new RegExp(`^Cannot read "${file}": corrupt or truncated gzip data \\(.+\\)\\.$`));
      expect(err.hint).toBe('Check it with `gzip -t`; a file still being written or copied may be cut short.');
    }
  });
});

describe('resolveInputs', () => {
  it('orders a directory into rotation chains (active file last) and single-file chains', async () => {
    const dir = tempDir();
    const put = (name: string, data: string | Buffer) => writeFileSync(path.join(dir, name), data);
    put('audit.log', `${eventLine({ auditID: 'newest' })}\n`);
    put('audit-2026-08-08T18-12-05.123.log.gz', gzipSync(`${eventLine({ auditID: 'middle' })}\n`));
    put('audit-2026-08-07T01-00-00.000.log', `${eventLine({ auditID: 'oldest' })}\n`);
    put('other.log', `${eventLine({ auditID: 'other' })}\n`);
    put('kube-apiserver-2026-01-01T00-00-00.000.log', '');
    put('.hidden.log', 'not read');
    mkdirSync(path.join(dir, 'subdir'));
    put('subdir/audit.log', 'not read');

    const chains = await resolveInputs([dir], NO_STDIN);
    expect(chains.map((c) => [c.name, c.members.map((m) => [path.basename(m.name), m.kind])])).toEqual([
      [
        path.join(dir, 'audit.log'),
        [
          ['audit-2026-08-07T01-00-00.000.log', 'file'],
          ['audit-2026-08-08T18-12-05.123.log.gz', 'gzip'],
          ['audit.log', 'file'],
        ],
      ],
      [path.join(dir, 'kube-apiserver.log'), [['kube-apiserver-2026-01-01T00-00-00.000.log', 'file']]],
      [path.join(dir, 'other.log'), [['other.log', 'file']]],
    ]);
    const r = await readChains(chains);
    expect(r.records.map((x) => x.auditID)).toEqual(['oldest', 'middle', 'newest', 'other']);
    expect(r.stats.map((s) => [path.basename(s.name), s.lines, s.requests])).toEqual([
      ['audit-2026-08-07T01-00-00.000.log', 1, 1],
      ['audit-2026-08-08T18-12-05.123.log.gz', 1, 1],
      ['audit.log', 1, 1],
      ['kube-apiserver-2026-01-01T00-00-00.000.log', 0, 0],
      ['other.log', 1, 1],
    ]);
  });

  it('sorts backups by the time in the name, not by name', async () => {
    const dir = tempDir();
    for (const name of ['a-2026-01-02T00-00-00.000', 'a-2025-12-31T23-59-59.999.gz', 'a-2026-01-01T00-00-00.001']) {
      writeFileSync(path.join(dir, name), '');
    }
    const [chain] = await resolveInputs([dir], NO_STDIN);
    expect(chain!.name).toBe(path.join(dir, 'a'));
    expect(chain!.members.map((m) => path.basename(m.name))).toEqual(['a-2025-12-31T23-59-59.999.gz', 'a-2026-01-01T00-00-00.001', 'a-2026-01-02T00-00-00.000']);
  });

  it('reads stdin for [] and "-"', async () => {
    for (const paths of [[], ['-']]) {
      const chains = await resolveInputs(paths, NO_STDIN);
      expect(chains.map((c) => [c.name, c.members.map((m) => [m.name, m.kind, m.bytes])])).toEqual([[STDIN_NAME, [[STDIN_NAME, 'stdin', 0]]]]);
    }
  });

  it('throws InputError naming a missing path, an empty directory, or "-" twice', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'nope.log');
    const err = await inputError(resolveInputs([missing], NO_STDIN));
    expect(err.message).toBe(`Cannot read input "${missing}": no such file or directory.`);
    expect((await inputError(resolveInputs([dir], NO_STDIN))).message).toBe(`Directory "${dir}" has no files to read.`);
    expect((await inputError(resolveInputs(['-', '-'], NO_STDIN))).message).toBe('Standard input ("-") is given more than once.');
  });
});

describe('sniffing', () => {
  const opts = { maxLineLength: 1 << 20, sniffLines: 3 };

  async function rejection(input: string | Buffer, o = opts): Promise<{ message: string; hint: string | undefined }> {
    const err = await inputError(readStdin(input, o));
    return { message: err.message, hint: err.hint };
  }

  it('accepts an empty input and blank lines', async () => {
    for (const input of ['', '\n\r\n  \n']) {
      const r = await readStdin(input, opts);
      expect(r.records).toEqual([]);
      expect(r.stats[0]!.badLines).toBe(0);
    }
  });

  it('accepts bad first lines when a later line within sniffLines is an event', async () => {
    const r = await readStdin(`junk\n[1]\n${eventLine()}\nmore junk\n`, opts);
    expect([r.records.length, r.stats[0]!.badLines, r.badCount]).toEqual([1, 3, 3]);
    expect(r.bad.map((b) => b.line)).toEqual([1, 2, 4]);
  });

  it('rejects when the first sniffLines lines are all bad, even if an event follows', async () => {
    const { message } = await rejection(`a\nb\nc\n${eventLine()}\n`);
    expect(message).toMatch(
      /^"<stdin>" does not look like a kube-apiserver audit log: none of its first 3 non-blank lines is an audit event \(line 1: not JSON \(.*\)\)\. It looks like: JSON or text that is not audit events\.$/,
    );
  });

  it('reads shapes that used to be rejected: pretty-printed event, EventList, JSON array, AKS records', async () => {
    const big = { ...opts, sniffLines: 1000 };
    const list = { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [CONFLICT_EVENT] };
    const aks = { records: [{ category: 'kube-audit', properties: { log: eventLine() } }] };
    const cases: [string, string][] = [
      [JSON.stringify(CONFLICT_EVENT, null, 2), 'json-docs'],
      [JSON.stringify(list), 'eventlist'], // one line: JSON lines framing, an EventList value
      [JSON.stringify(list, null, 2), 'eventlist'],
      [JSON.stringify([CONFLICT_EVENT], null, 2), 'json-array'],
      [`${JSON.stringify([CONFLICT_EVENT])}\n`, 'jsonl'],
      [`${JSON.stringify(aks)}\n`, 'aks'],
    ];
    for (const [input, format] of cases) {
      const r = await readStdin(input, big);
      expect([r.records.length, r.stats[0]!.format, r.badCount]).toEqual([1, format, 0]);
    }
  });

  it('describes a pretty-printed JSON document that is not audit data', async () => {
    const { message, hint } = await rejection(JSON.stringify({ name: 'auditstorm', version: '0.1.0' }, null, 2));
    expect(message).toBe(
      '"<stdin>" does not look like a kube-apiserver audit log: its first JSON value is not an audit event (line 1: JSON but not an audit event: no auditID). It looks like: a pretty-printed (multi-line) JSON document.',
    );
    expect(hint).toContain('jq -c . FILE');
  });

  it('describes JSON arrays of non-events, one per line', async () => {
    expect((await rejection('[1, 2]\n[3]\n["x"]\n')).message).toContain('It looks like: JSON arrays, one per line.');
  });

  it('describes a YAML audit Policy file', async () => {
    const policy = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n';
    const { message, hint } = await rejection(policy);
    expect(message).toBe(
      '"<stdin>" does not look like a kube-apiserver audit log: its first YAML document is not an audit event (line 1: JSON but not an audit event: kind "Policy"). It looks like: a YAML audit Policy (the rules for what to log), not an audit log.',
    );
    expect(hint).toContain('--audit-policy-file');
  });

  it('describes YAML, legacy text, HTML, binary data and over-long lines', async () => {
    const looks = async (input: string | Buffer, o = opts) => (await rejection(input, o)).message.split('It looks like: ')[1];
    expect(await looks('# comment\napiVersion: audit.k8s.io/v1\nkind: Event\nlevel: Metadata\n')).toBe('YAML.');
    expect(await looks('---\nkind: Event\n')).toBe('YAML.');
    expect(await looks('2026-07-01T10:00:00.123456Z AUDIT: id="6f1b" stage="ResponseComplete" ip="10.0.0.1" method="update"\n')).toBe(
      'the legacy text audit format (--audit-log-format=legacy).',
    );
    expect(await looks('<!DOCTYPE html>\n<html><body>Sign in</body></html>\n')).toBe('an HTML or XML document.');
    expect(await looks(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x0a, 0x01, 0x00, 0xff, 0xfe]))).toBe('binary data.');
    expect(await looks(`${'x'.repeat(50)}\n`, { maxLineLength: 10, sniffLines: 3 })).toBe('only lines longer than the maximum line length.');
  });
});

describe('readChain API', () => {
  it('updates stats while reading and yields only non-empty batches', async () => {
    const input = `${eventLine({ stage: 'RequestReceived' })}\n${eventLine()}\n`;
    const [chain] = await resolveInputs([], { stdin: Readable.from([Buffer.from(input)]) });
    const read = readChain(chain!, new Normalizer(), DEFAULT_READ, new BadLineLog(0));
    expect(read.stats[0]!.lines).toBe(0);
    const batches = [];
    for await (const b of read.batches) batches.push(b.length);
    expect(batches).toEqual([1]);
    expect(read.stats[0]).toMatchObject({ lines: 2, events: 2, requests: 1, nonFinalStages: 1 });
  });

  it('BadLineLog counts every bad line and keeps the first `limit`', () => {
    const log = new BadLineLog(2);
    log.add('a', 1, 'x');
    log.add('a', 2, 'y');
    log.add('b', 7, 'z');
    expect(log.count).toBe(3);
    expect(log.samples()).toEqual([
      { source: 'a', line: 1, reason: 'x' },
      { source: 'a', line: 2, reason: 'y' },
    ]);
  });
});
