import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { renderJson } from '../../src/report/json.js';
import { ReportSchema, type Report } from '../../src/report/schema.js';
import { cleanReport, copy, deepFreeze, hostileReport, report } from './fixture.js';

describe('renderJson', () => {
  it('round-trips through ReportSchema.parse and equals the input', () => {
    for (const r of [report, cleanReport, hostileReport()]) {
      const out = renderJson(r);
      const parsed = ReportSchema.parse(JSON.parse(out));
      expect(parsed).toEqual(r);
    }
  });

  it('is pretty-printed with 2 spaces and a trailing newline', () => {
    const out = renderJson(report);
    expect(out.startsWith('{\n  "schemaVersion": 1,\n  "tool": {\n    "name": "auditstorm",\n    "version": "0.1.0"\n  },\n')).toBe(true);
    expect(out.endsWith('}\n')).toBe(true);
    expect(out).toContain('\n        "conflictRatio": 0.929216152,\n');
    expect(out).toBe(`${JSON.stringify(report, null, 2)}\n`);
  });

  it('throws on a report that breaks the schema', () => {
    const bad = copy(report) as unknown as { findings: Array<{ severity: string }> };
    bad.findings[0]!.severity = 'urgent';
    expect(() => renderJson(bad as unknown as Report)).toThrow(ZodError);
    const noVersion = { ...copy(report), schemaVersion: 2 } as unknown as Report;
    expect(() => renderJson(noVersion)).toThrow(ZodError);
  });

  it('writes DEL, C1 controls and bidi marks as \\u escapes: the same value, nothing raw for a terminal', () => {
    const r = copy(report);
    r.findings[0]!.title = 'a\u009b31mb\u202ec\u007fd\u2028e\u001bf';
    const out = renderJson(r);
    expect(out).toContain('"title": "a\\u009b31mb\\u202ec\\u007fd\\u2028e\\u001bf"');
    const raw = [...out].map((c) => c.charCodeAt(0)).filter((n) => (n < 0x20 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e) || n === 0x2028);
    expect(raw).toEqual([]);
    expect(ReportSchema.parse(JSON.parse(out))).toEqual(r);
  });

  it('does not modify the report', () => {
    const frozen = deepFreeze(copy(report));
    expect(renderJson(frozen)).toBe(renderJson(report));
  });
});
