/**
 * The diff page in headless Chromium (Debian `chromium`, driven by `playwright-core`, as in
 * `html.test.ts`): BEFORE is the bundled sample log, AFTER a generated log of the same shape in
 * which the storm runs at a fifth of its rate and another controller storms, with a hostile
 * username. Both timelines must be drawn on one relative axis, verdicts shown, the hostile text
 * shown as text, nothing loaded but the file, no errors. Screenshot: `test-output/diff.png`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/index.js';
import { diffReports } from '../../src/diff/diff.js';
import { renderDiffHtml } from '../../src/diff/html.js';
import { generateLog, logText } from '../../src/generator/generate.js';
import { PRESETS } from '../../src/generator/presets.js';

/** What the callback run in the page uses of an SVG path (tsconfig has no DOM lib: the rest of the code runs in Node). */
interface SvgPath {
  getAttribute(name: string): string | null;
  getBBox(): { width: number };
}

const CHROMIUM = process.env.AUDITSTORM_CHROMIUM ?? '/usr/bin/chromium';
const OUT = resolve('test-output');
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const now = () => new Date('2026-03-14T12:00:00.000Z');

let browser: Browser;
let html: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\`, or set AUDITSTORM_CHROMIUM`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  mkdirSync(OUT, { recursive: true });
  const spec = PRESETS['sample']!.spec(99);
  spec.start = '2026-03-21T15:30:00Z';
  spec.scenarios = spec.scenarios.map((s) => (s.type === 'storm' ? { ...s, ratePerSec: 6 } : s));
  spec.scenarios.push({ type: 'incident', startOffsetMs: 6 * 60_000, durationMs: 60_000 });
  const afterLog = resolve(OUT, 'diff-after.log');
  writeFileSync(afterLog, `${logText(generateLog(spec))}\n`);
  const before = await analyze({ inputs: ['fixtures/sample/audit.log.gz'] }, { now });
  const after = await analyze({ inputs: [afterLog] }, { now });
  after.findings.find((f) => f.kind === 'conflict-storm' && f.actors[0]!.username.includes('appdeployment'))!.actors[0]!.serviceAccount!.name = HOSTILE;
  const d = diffReports(
    { name: 'fixtures/sample/audit.log.gz', from: 'log', report: before },
    { name: 'diff-after.log', from: 'log', report: after },
    { generatedAt: now().toISOString(), version: 'test' },
  );
  html = renderDiffHtml(d);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('diff HTML in Chromium', () => {
  it('shows verdicts and both timelines on one axis from each run start, runs nothing, loads nothing', async () => {
    const path = resolve(OUT, 'diff.html');
    writeFileSync(path, html);
    const url = pathToFileURL(path).href;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(100);

    expect(await page.locator('#verdict').textContent()).toBe('1 finding is new or worse.');
    expect(await page.locator('#verdicts li .v').allTextContents()).toEqual(['new', 'better']);
    const lines = await page.$$eval('#chart-conflicts path.line', (ps: SvgPath[]) => ps.map((p) => ({ cls: p.getAttribute('class'), w: p.getBBox().width })));
    expect(lines.map((l) => l.cls)).toEqual(['line l-before', 'line l-after']);
    // Both ten-minute runs span (nearly) the whole plot width, on one axis.
    for (const l of lines) expect(l.w).toBeGreaterThan(800);
    const ticks = await page.locator('#chart-conflicts text.xlab').allTextContents();
    expect(ticks[0]).toBe('+0m');
    expect(ticks).toEqual(['+0m', '+2m', '+4m', '+6m', '+8m', '+10m']);
    expect(await page.locator('#chart-writes path.line').count()).toBe(2);

    const body = await page.locator('main').innerText();
    expect(body).toContain(HOSTILE);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');

    // The cluster table sorts by the page script.
    await page.locator('#table-diff-cluster th', { hasText: 'BEFORE' }).click();
    expect(await page.locator('#table-diff-cluster th', { hasText: 'BEFORE' }).getAttribute('aria-sort')).toBe('descending');

    await page.screenshot({ path: resolve(OUT, 'diff.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });
});
