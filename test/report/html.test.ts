import { describe, expect, it } from 'vitest';
import { embedJson, niceCeil, renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report } from '../../src/report/schema.js';
import { report } from './fixture.js';

const EVIL = {
  user: '<script>alert(1)</script>',
  userAgent: 'x/1 "><img src=x onerror=alert(2)> </script><script>alert(3)</script> | pipe | `tick` http://evil.example/',
  name: 'a|b`c`\u2028</script>',
};

function hostile(r: Report): Report {
  const h = structuredClone(r);
  const f = h.findings[0]!;
  f.actors[0]!.username = EVIL.user;
  f.actors[0]!.userAgent = EVIL.userAgent;
  f.object!.name = EVIL.name;
  h.summaries.topActors.byRequests[0]!.userAgent = EVIL.userAgent;
  return h;
}

/** The embedded JSON text of a rendered page. */
function embedded(html: string): string {
  const m = /<script id="report-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  return m?.[1] ?? '';
}

describe('renderHtml', () => {
  it('is deterministic, self-contained and embeds the report as JSON', () => {
    const html = renderHtml(report);
    expect(renderHtml(report)).toBe(html);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/\b(src|href)=/);
    expect(html).toContain("default-src 'none'".replace(/'/g, '&#39;'));
    expect(JSON.parse(embedded(html))).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it('escapes hostile strings in text and in the embedded JSON', () => {
    const r = hostile(report);
    const html = renderHtml(r);
    // Exactly the two scripts of the page, and no element from the data.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    // URLs from data appear only as escaped text, never as an attribute.
    for (const m of html.matchAll(/https?:\/\//g)) {
      const before = html.slice(0, m.index);
      expect(before.lastIndexOf('>')).toBeGreaterThan(before.lastIndexOf('<'));
    }
    const json = embedded(html);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(r)));
  });

  it('renders a report without series or findings', () => {
    const r = structuredClone(report);
    r.findings = [];
    delete r.series;
    const html = renderHtml(r);
    expect(html).toContain('No retry or write loops found');
    expect(html).toContain('No time series in this report.');
  });
});

describe('embedJson', () => {
  it('escapes characters that could end the script element', () => {
    const s = embedJson({ a: '</script><!-- & \u2028\u2029' });
    expect(s).toBe('{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029"}');
    expect(JSON.parse(s)).toEqual({ a: '</script><!-- & \u2028\u2029' });
  });
});

describe('niceCeil', () => {
  it('rounds up to 1, 2, 2.5, 5 × 10^k', () => {
    expect([0, 0.3, 1, 3, 7, 11, 24, 26, 75, 101].map(niceCeil)).toEqual([1, 1, 1, 5, 10, 20, 25, 50, 100, 200]);
  });
});

describe('Markdown with hostile strings', () => {
  it('keeps them as text: no raw HTML, no extra table cells', () => {
    const md = renderMarkdown(hostile(report));
    // Inside code spans nothing is interpreted; everywhere else there must be no raw HTML.
    const outsideCode = md.replace(/(`+)[\s\S]*?\1/g, '');
    expect(outsideCode).not.toMatch(/<script|<img|<\/script/i);
    for (const block of md.split('\n\n')) {
      const rows = block.split('\n').filter((l) => l.startsWith('|'));
      if (rows.length < 2) continue;
      const cells = rows.map((l) => l.match(/(?<!\\)\|/g)?.length ?? 0);
      expect(new Set(cells).size).toBe(1);
    }
  });
});
