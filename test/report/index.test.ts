import { describe, expect, it } from 'vitest';
import { FORMATS, formatFromPath, isFormat, renderHtml, renderJson, renderMarkdown, renderReport, renderText } from '../../src/report/index.js';
import { report } from './fixture.js';

describe('formatFromPath', () => {
  it('maps extensions to formats, case-insensitively', () => {
    expect(formatFromPath('out/report.json')).toBe('json');
    expect(formatFromPath('REPORT.JSON')).toBe('json');
    expect(formatFromPath('ticket.md')).toBe('markdown');
    expect(formatFromPath('/tmp/a.b/ticket.markdown')).toBe('markdown');
    expect(formatFromPath('report.txt')).toBe('text');
    expect(formatFromPath('C:\\reports\\run.log')).toBe('text');
  });
  it('maps .html and .htm to html', () => {
    expect(formatFromPath('report.html')).toBe('html');
    expect(formatFromPath('out/REPORT.HTM')).toBe('html');
  });
  it('returns undefined for unknown and missing extensions', () => {
    expect(formatFromPath('report.json.gz')).toBeUndefined();
    expect(formatFromPath('report')).toBeUndefined();
    expect(formatFromPath('dir.json/report')).toBeUndefined();
    expect(formatFromPath('.json')).toBeUndefined();
    expect(formatFromPath('report.')).toBeUndefined();
    expect(formatFromPath('-')).toBeUndefined();
    expect(formatFromPath('x.constructor')).toBeUndefined();
  });
});

describe('renderReport', () => {
  it('lists the formats', () => {
    expect(FORMATS).toEqual(['text', 'json', 'markdown', 'html']);
    expect(isFormat('markdown')).toBe(true);
    expect(isFormat('html')).toBe(true);
    expect(isFormat('pdf')).toBe(false);
  });
  it('dispatches to the renderers', () => {
    expect(renderReport(report, 'json')).toBe(renderJson(report));
    expect(renderReport(report, 'markdown')).toBe(renderMarkdown(report));
    expect(renderReport(report, 'html')).toBe(renderHtml(report));
    expect(renderReport(report, 'text')).toBe(renderText(report, { color: false }));
    expect(renderReport(report, 'text', { color: true, width: 120 })).toBe(renderText(report, { color: true, width: 120 }));
    expect(renderReport(report, 'text')).not.toContain('\u001b');
  });
});
