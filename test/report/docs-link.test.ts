/**
 * A finding's `docs` link (its kind's page) in the text, Markdown and HTML reports: shown when it
 * is a plain https URL, left out otherwise (a report read back may carry anything).
 */
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import type { Report } from '../../src/report/schema.js';
import { copy, report } from './fixture.js';

const URL_OK = 'https://github.com/auditstorm/auditstorm/blob/main/docs/detectors/conflict-storm.md';

function withDocs(docs: string): Report {
  const r = copy(report);
  r.findings = r.findings.map((f) => ({ ...f, docs }));
  return r;
}

describe('docs link', () => {
  it('is shown in every format when it is an https URL', () => {
    const r = withDocs(URL_OK);
    expect(renderText(r, { color: false, fit: true, width: 200 })).toContain(`\n    Docs            ${URL_OK}\n`);
    expect(renderMarkdown(r)).toContain(`- **Docs:** <${URL_OK}>`);
    expect(renderHtml(r)).toContain(`<h4>Docs</h4>\n<p><a href="${URL_OK}" rel="noreferrer">${URL_OK}</a></p>`);
  });

  it.each(['javascript:alert(1)', 'http://example.com/x', 'https://x.example/a b', 'https://x.example/\u001b[2J'])('is left out when it is %j', (docs) => {
    const r = withDocs(docs);
    expect(renderText(r, { color: false, fit: true, width: 200 })).not.toContain('    Docs ');
    expect(renderMarkdown(r)).not.toContain('**Docs:**');
    expect(renderHtml(r)).not.toContain('<h4>Docs</h4>');
  });

  it('Markdown leaves out a URL with brackets, which would end its autolink', () => {
    const r = withDocs('https://x.example/(a)>[b]');
    expect(renderMarkdown(r)).not.toContain('**Docs:**');
    expect(renderText(r, { color: false, fit: true, width: 200 })).toContain('    Docs            https://x.example/(a)>[b]\n');
  });
});
