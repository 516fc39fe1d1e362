import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdownCell, escapeMarkdownInline, markdownCodeSpan, stripControlChars } from '../../src/report/escape.js';
import { ESCAPES, HOSTILE } from './fixture.js';
import { unescapedPipes } from './markdown-util.js';

describe('stripControlChars', () => {
  it('removes ESC, BEL and C1 CSI and turns CR/LF/TAB into spaces', () => {
    expect(stripControlChars(ESCAPES)).toBe('[2J[31mred]0;pwned1m  end');
    expect(stripControlChars('a\tb\u0000c\u007fd')).toBe('a bcd');
  });
  it('turns Unicode line separators into spaces', () => {
    expect(stripControlChars('a\u2028b\u2029c')).toBe('a b c');
  });
  it('removes bidi overrides and keeps other Unicode', () => {
    expect(stripControlChars('adm\u202enim\u2066x\u2069 — 14× ✓')).toBe('admnimx — 14× ✓');
  });
});

describe('escapeMarkdownCell', () => {
  it('neutralises pipes, code, HTML, links and line breaks', () => {
    expect(escapeMarkdownCell(HOSTILE)).toBe('evil\\|agent \\`x\\` &lt;script&gt;alert(1)&lt;/script&gt; \\[link\\](http\\://x)');
  });
  it('escapes emphasis, strikethrough, math, headings, backslashes and entities', () => {
    expect(escapeMarkdownCell('*a* _b_ ~~c~~ $d$ #1 \\| &amp;')).toBe('\\*a\\* \\_b\\_ \\~\\~c\\~\\~ \\$d\\$ \\#1 \\\\\\| &amp;amp;');
    expect(escapeMarkdownCell('see www.evil.example')).toBe('see www\\.evil.example');
  });
  it('leaves block starters alone (cells are inline only)', () => {
    expect(escapeMarkdownCell('1.5 s')).toBe('1.5 s');
    expect(escapeMarkdownCell('- x')).toBe('- x');
  });
  it('never leaves an unescaped pipe or a line break', () => {
    for (const s of [HOSTILE, 'a\\|b', 'a\\\\|b', '|||', '\\', 'x\r\ny|\n|']) {
      const out = escapeMarkdownCell(s);
      expect(unescapedPipes(out)).toBe(0);
      expect(out).not.toMatch(/[\r\n]/);
    }
  });
});

describe('escapeMarkdownInline', () => {
  it('neutralises block starters at the start', () => {
    expect(escapeMarkdownInline('- item')).toBe('\\- item');
    expect(escapeMarkdownInline('+ item')).toBe('\\+ item');
    expect(escapeMarkdownInline('=== ')).toBe('\\=== ');
    expect(escapeMarkdownInline('12. item')).toBe('12\\. item');
    expect(escapeMarkdownInline('3) item')).toBe('3\\) item');
    expect(escapeMarkdownInline('    code')).toBe('&#32;&#32;&#32;&#32;code');
    expect(escapeMarkdownInline('# heading')).toBe('\\# heading');
    expect(escapeMarkdownInline('> quote')).toBe('&gt; quote');
  });
  it('keeps ordinary text readable', () => {
    expect(escapeMarkdownInline('update deployment shop/cart 14× per success: 92.9%')).toBe('update deployment shop/cart 14× per success: 92.9%');
  });
});

describe('markdownCodeSpan', () => {
  it('uses a fence longer than any backtick run', () => {
    expect(markdownCodeSpan('abc')).toBe('`abc`');
    expect(markdownCodeSpan('a`b')).toBe('``a`b``');
    expect(markdownCodeSpan('id`with``ticks')).toBe('```id`with``ticks```');
  });
  it('pads when the content starts or ends with a backtick or is space-wrapped', () => {
    expect(markdownCodeSpan('`a')).toBe('`` `a ``');
    expect(markdownCodeSpan('a`')).toBe('`` a` ``');
    expect(markdownCodeSpan(' a ')).toBe('`  a  `');
    expect(markdownCodeSpan('  ')).toBe('`  `');
  });
  it('puts everything on one line and strips controls', () => {
    expect(markdownCodeSpan('a\n\nb\u001b[31m')).toBe('`a  b[31m`');
    expect(markdownCodeSpan('')).toBe('');
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeHtml('plain')).toBe('plain');
  });
});
