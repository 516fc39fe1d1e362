/**
 * The HTML report in a real browser: headless Chromium (Debian package `chromium`, driven by
 * `playwright-core`) opens reports generated from the bundled sample log, one of them with
 * hostile userAgent, username and object name. Charts must render, tables sort, nothing may
 * log an error, load anything but the file itself, or run injected code.
 *
 * Chromium is required, not optional: when `/usr/bin/chromium` (or `$AUDITSTORM_CHROMIUM`) is
 * missing every test here fails with the command that installs it. Screenshots go to
 * `test-output/` (ignored by git); with `AUDITSTORM_DOCS_SCREENSHOT=1` (`npm run screenshot`)
 * the README's `docs/report.png` is written too.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/index.js';
import { renderHtml } from '../../src/report/html.js';
import type { Report } from '../../src/report/schema.js';

/** What the callbacks run in the page use of a DOM element (tsconfig has no DOM lib: the rest of the code runs in Node). */
interface PageElement {
  getAttribute(name: string): string | null;
  readonly textContent: string | null;
}
interface SvgPath extends PageElement {
  getBBox(): { width: number };
}

const CHROMIUM = process.env.AUDITSTORM_CHROMIUM ?? '/usr/bin/chromium';
const OUT = resolve('test-output');
/** Relative, as a user would type it: the report names its sources as given. */
const SAMPLE = 'fixtures/sample/audit.log.gz';

/** Hostile strings as they could come from an audit log (a client sets its own userAgent). */
export const HOSTILE = {
  user: '<script>window.__pwned=1;alert(1)</script>',
  userAgent: 'evil/1.0 "><img src=x onerror="window.__pwned=2;alert(2)"> </script><script>window.__pwned=3;alert(3)</script> | col | `tick`',
  name: 'obj`name`|</script><svg onload=alert(4)>',
};

let browser: Browser;
let sample: Report;

async function sampleReport(): Promise<Report> {
  return analyze({ inputs: [SAMPLE] }, { now: () => new Date('2026-03-14T12:00:00.000Z') });
}

/** The sample report with hostile strings in the finding's actor and object and in the top actors. */
export function hostileReport(r: Report): Report {
  const h = structuredClone(r);
  const f = h.findings[0]!;
  f.actors[0]!.username = HOSTILE.user;
  f.actors[0]!.userAgent = HOSTILE.userAgent;
  f.object!.name = HOSTILE.name;
  f.title = `${HOSTILE.user} ${f.title}`;
  const a = h.summaries.topActors.byRequests[0]!;
  a.username = HOSTILE.user;
  a.userAgent = HOSTILE.userAgent;
  return h;
}

interface Opened {
  page: Page;
  url: string;
  requests: string[];
  errors: string[];
  dialogs: string[];
}

async function open(report: Report, file: string, viewport = { width: 1280, height: 900 }): Promise<Opened> {
  mkdirSync(OUT, { recursive: true });
  const path = resolve(OUT, file);
  writeFileSync(path, renderHtml(report));
  const url = pathToFileURL(path).href;
  const page = await browser.newPage({ viewport });
  const o: Opened = { page, url, requests: [], errors: [], dialogs: [] };
  page.on('request', (req) => o.requests.push(req.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') o.errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => o.errors.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    o.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return o;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: the browser tests need it. Install it with ` +
        '`apt-get update && apt-get install -y chromium` (Debian; .ci/run does this), or set AUDITSTORM_CHROMIUM to a Chromium binary.',
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  sample = await sampleReport();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('HTML report in Chromium', () => {
  it('multi-day input: dated ticks, the empty days left out, the 75,409/s storm at its height', async () => {
    const two = await analyze({ inputs: [SAMPLE, 'fixtures/incident/payment-core.log'] }, { now: () => new Date('2026-03-14T12:00:00.000Z') });
    const o = await open(two, 'two.html');
    const { page } = o;
    const ticks = await page.$$eval('#chart-cluster text.xlab', (ts: PageElement[]) => ts.map((t) => t.textContent ?? ''));
    // Each busy stretch opens with a dated tick (MM-DD HH:MM).
    expect(ticks.filter((t) => /^\d\d-\d\d \d\d:\d\d/.test(t)).length).toBe(2);
    expect(await page.locator('#chart-cluster g.break').count()).toBe(1);
    // The series keeps its 10 s buckets across the two days (it was 29.67 min when the empty days counted).
    expect(two.series!.bucketMs).toBe(10_000);
    expect(await page.$$eval('#chart-cluster text.ylab', (ts: PageElement[]) => ts.map((t) => t.textContent ?? ''))).toEqual(['0', '25', '50']);
    // Each finding's chart marks its busiest second at its real height: 75 409/s for featureflag.
    const n = two.findings.findIndex((f) => f.title.includes('featureflag-controller-manager')) + 1;
    expect(n).toBeGreaterThan(0);
    expect(await page.$$eval(`#chart-finding-${n} .peak text`, (ts: PageElement[]) => ts.map((t) => t.textContent ?? ''))).toEqual([
      'peak 79 writes/s (busiest second)',
      'peak 75 409/s (busiest second)',
    ]);
    expect(await page.$$eval(`#chart-finding-${n} text.ylab`, (ts: PageElement[]) => ts.map((t) => t.textContent ?? ''))).toEqual(['0', '50', '100']);
    const y75 = Number(await page.locator(`#chart-finding-${n} .peak.l-conflicts line`).getAttribute('y1'));
    // Plot from y=14 (100/s) to y=174 (0/s) in a 200 px chart: 75/s sits at 174 - 0.75 × 160 = 54.
    expect(y75).toBe(54);
    await page.screenshot({ path: resolve(OUT, 'two.png'), fullPage: false, clip: { x: 0, y: 0, width: 1280, height: 900 } });
    expect(o.errors).toEqual([]);
    await page.close();
  });

  it('renders the sample: verdict, charts with content, no errors, no requests but the file', async () => {
    const o = await open(sample, 'report.html');
    const { page } = o;
    expect(await page.locator('#verdict').textContent()).toContain('1 controller in retry loops on 409 Conflict');
    // Cluster chart: three non-empty lines and the episode shaded.
    const cluster = await page.$$eval('#chart-cluster path.line', (ps: SvgPath[]) => ps.map((p) => ({ d: p.getAttribute('d') ?? '', w: p.getBBox().width })));
    expect(cluster).toHaveLength(3);
    for (const p of cluster) {
      expect(p.d.length).toBeGreaterThan(20);
      expect(p.w).toBeGreaterThan(100);
    }
    expect(await page.locator('#chart-cluster .episode rect').count()).toBe(1);
    // The finding: its own timeline and the retry-gap histogram.
    expect(await page.locator('#chart-finding-1 path.line').count()).toBe(2);
    const bars = await page.$$eval('#chart-gaps-1 rect.bar', (rs: PageElement[]) => rs.map((r) => Number(r.getAttribute('height'))));
    expect(bars.some((h) => h > 10)).toBe(true);
    const box = await page.locator('#chart-cluster').boundingBox();
    expect(box?.width).toBeGreaterThan(600);
    expect(box?.height).toBeGreaterThan(100);
    // The embedded JSON is the report.
    const data = await page.locator('#report-data').textContent();
    expect(JSON.parse(data ?? '')).toEqual(JSON.parse(JSON.stringify(sample)));
    // Copy buttons work or fall back to selecting, without errors.
    await page.locator('button.copy').first().click();
    // (Polled from here: a string predicate would need eval, which the page's CSP forbids.)
    await expect.poll(() => page.locator('button.copy').first().textContent()).not.toBe('copy');

    await page.screenshot({ path: resolve(OUT, 'report.png'), fullPage: true });
    if (process.env.AUDITSTORM_DOCS_SCREENSHOT) {
      const docs = await open(sample, 'report-docs.html', { width: 1200, height: 1250 });
      const path = resolve('docs/report.png');
      mkdirSync(resolve('docs'), { recursive: true });
      await docs.page.screenshot({ path });
      expect(statSync(path).size).toBeLessThan(300 * 1024);
      await docs.page.close();
    }

    expect(o.errors).toEqual([]);
    expect(o.dialogs).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    await page.close();
  });

  it('sorts a table when a header is clicked', async () => {
    const o = await open(sample, 'report-sort.html');
    const { page } = o;
    const table = page.locator('#table-verb-resource-code');
    const column = async (i: number): Promise<string[]> =>
      table.locator(`tbody tr td:nth-child(${i})`).evaluateAll((tds: PageElement[]) => tds.map((td) => td.getAttribute('data-v') ?? td.textContent ?? ''));
    const byCount = (await column(4)).map(Number);
    expect(byCount.length).toBeGreaterThan(3);

    await table.locator('th', { hasText: 'Requests' }).click();
    const desc = (await column(4)).map(Number);
    expect(desc).toEqual([...byCount].sort((a, b) => b - a));
    await table.locator('th', { hasText: 'Requests' }).click();
    const asc = (await column(4)).map(Number);
    expect(asc).toEqual([...byCount].sort((a, b) => a - b));
    expect(await table.locator('th', { hasText: 'Requests' }).getAttribute('aria-sort')).toBe('ascending');

    await table.locator('th', { hasText: 'Resource' }).click();
    const resources = await column(2);
    expect(resources).toEqual([...resources].sort((a, b) => a.localeCompare(b)));
    expect(o.errors).toEqual([]);
    await page.close();
  });

  it('shows hostile userAgents, usernames and names as plain text and runs nothing', async () => {
    const report = hostileReport(sample);
    const o = await open(report, 'report-hostile.html');
    const { page } = o;
    // Give an injected handler every chance to fire.
    await page.waitForTimeout(200);
    expect(o.dialogs).toEqual([]);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('main script, main svg[onload], main [onerror]').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    const body = await page.locator('main').innerText();
    expect(body).toContain(HOSTILE.user);
    expect(body).toContain(HOSTILE.userAgent);
    expect(body).toContain(HOSTILE.name);
    const data = await page.locator('#report-data').textContent();
    expect(JSON.parse(data ?? '')).toEqual(JSON.parse(JSON.stringify(report)));
    expect(o.errors).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    await page.screenshot({ path: resolve(OUT, 'report-hostile.png') });
    await page.close();
  });
});
