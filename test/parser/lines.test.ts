import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stripPrefix } from '../../src/decoding/prefix.js';
import { splitLines } from '../../src/ingest/lines.js';
import { chunks } from './helpers.js';

async function split(text: string | Buffer, maxLength: number, chunkSize: number) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const { counts, batches } = splitLines(Readable.from(chunks(bytes, chunkSize)), maxLength);
  const texts: string[] = [];
  const lineNos: number[] = [];
  let batchCount = 0;
  for await (const batch of batches) {
    batchCount++;
    texts.push(...batch.texts);
    lineNos.push(...batch.lineNos);
    // Each line is where its piece says, and an ASCII piece's bytes are its text.
    batch.texts.forEach((t, i) => {
      const piece = batch.pieces[i]!;
      expect(piece.slice(batch.ats[i], batch.ats[i]! + t.length)).toBe(t);
      const ascii = batch.asciis[i]!;
      if (ascii !== null) expect(ascii.toString('latin1')).toBe(piece);
      // eslint-disable-next-line no-control-regex
      else expect(/^[\x00-\x7f]*$/.test(piece)).toBe(false);
    });
  }
  return { texts, lineNos, lines: counts.lines, overlong: counts.overlong, batchCount };
}

const SIZES = [1, 2, 3, 7, 10, 11, 64, 4096];

describe('stripPrefix', () => {
  it.each([
    ['{"a":1}', '{"a":1}'],
    ['ip-10-0-1-2.ec2.internal {"a":1}', '{"a":1}'],
    ['2026-07-01T10:00:00.123Z {"a":1}', '{"a":1}'],
    ['Jul 01 10:00:00 master-0 kube-apiserver[42]: {"a":1}', '{"a":1}'],
    [' {"a":1}', '{"a":1}'],
    ['  "user": {', '  "user": {'],
    ['"quoted" {"a":1}', '"quoted" {"a":1}'],
    ['host{"a":1}', 'host{"a":1}'],
    ['no brace at all', 'no brace at all'],
    [
      'W1205 17:12:05.000002       1 logging.go:59] grpc: failed to connect to {Addr: "127.0.0.1:2379", }',
      'W1205 17:12:05.000002       1 logging.go:59] grpc: failed to connect to {Addr: "127.0.0.1:2379", }',
    ],
  ])('%j → %j', (line, expected) => {
    expect(stripPrefix(line)).toBe(expected);
  });
});

describe('splitLines', () => {
  it('numbers lines across over-long ones, whatever the chunking', async () => {
    const text = `a\n${'x'.repeat(25)}\nb\r\n\n   \nccc\n${'y'.repeat(40)}\n${'z'.repeat(12)}`;
    for (const size of SIZES) {
      const r = await split(text, 10, size);
      expect({ ...r, batchCount: undefined }, `chunk ${size}`).toEqual({
        texts: ['a', 'b', 'ccc'],
        lineNos: [1, 3, 6],
        lines: 8,
        overlong: 3,
        batchCount: undefined,
      });
    }
  });

  it('counts an over-long line of exactly one chunk and one at the very end', async () => {
    for (const size of SIZES) {
      const r = await split(`${'x'.repeat(11)}\nok\n${'y'.repeat(30)}`, 10, size);
      expect([r.texts, r.lineNos, r.lines, r.overlong], `chunk ${size}`).toEqual([['ok'], [2], 3, 2]);
    }
  });

  it('keeps a line of exactly maxLength', async () => {
    const r = await split(`${'x'.repeat(10)}\n`, 10, 3);
    expect([r.texts, r.overlong]).toEqual([['x'.repeat(10)], 0]);
  });

  it('strips a BOM on line 1 only, and decodes UTF-8 split across chunks', async () => {
    const text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é日本\n\ufeffsecond\n')]);
    for (const size of SIZES) {
      const r = await split(text, 100, size);
      expect(r.texts, `chunk ${size}`).toEqual(['é日本', '\ufeffsecond']);
    }
  });

  it('delivers one batch per chunk, not per line', async () => {
    const r = await split('a\nb\nc\nd\n', 100, 4096);
    expect([r.texts.length, r.batchCount]).toEqual([4, 1]);
  });

  it('throws the input stream error from the iterator', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk on fire'));
      },
    });
    const { batches } = splitLines(failing, 100);
    await expect(
      (async () => {
        for await (const _ of batches) void _;
      })(),
    ).rejects.toThrow('disk on fire');
  });
});
