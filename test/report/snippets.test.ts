import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { copy, report } from './fixture.js';

/** The fixture's finding with the controller-runtime advices a conflict storm gives. */
function withAdvice(): typeof report {
  const r = copy(report);
  r.findings[0]!.advice = [
    { id: 'compare-before-write', text: 'Write only when the desired status differs.' },
    { id: 'requeue-with-backoff', text: 'Requeue with backoff.' },
    { id: 'reread-before-retry', text: 'Re-read before retrying.' },
    { id: 'leader-election', text: 'Run one active replica.' },
    { id: 'flowschema', text: 'No snippet for this one.' },
  ];
  return r;
}

describe('advice snippets', () => {
  it('Markdown shows each fix as a Go block under its advice, a repeated snippet once', () => {
    const md = renderMarkdown(withAdvice());
    expect(md).toContain(
      '- Write only when the desired status differs.\n\n  ```go\n  // Write only when the computed status differs from the current one.\n  if equality.Semantic.DeepEqual(obj.Status, desired) {\n',
    );
    expect(md.split('retry.RetryOnConflict(retry.DefaultBackoff').length - 1).toBe(1);
    expect(md).toContain('- Re-read before retrying.\n- Run one active replica.\n\n  ```go\n  // One active replica at a time.\n');
    expect(md).toContain('    LeaderElection:   true,\n');
    expect(md).toContain('- No snippet for this one.\n\n**Evidence**');
  });

  it('HTML shows the same snippets, escaped, in pre blocks', () => {
    const html = renderHtml(withAdvice());
    expect(html.match(/<pre class="go">/g)).toHaveLength(3);
    expect(html).toContain(
      '<li>Requeue with backoff.<pre class="go"><code>// Re-read the object before each attempt; back off between attempts.\nerr := retry.RetryOnConflict(retry.DefaultBackoff, func() error {',
    );
    expect(html).toContain('return ctrl.Result{}, r.Status().Update(ctx, obj)');
    expect(html).toContain('<li>No snippet for this one.</li>');
  });
});
