import { describe, expect, it } from 'vitest';
import { blameRun } from '../blame/blame-run';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { renderReport } from './render-report';

const HOSTILE = '<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) \u202Eevil\u202C `code` | pipe';

function hostileRun() {
  const b = new TraceBuilder({ runId: 'run-<b>x</b>', pipeline: `pipe ${HOSTILE}`, input: { question: HOSTILE } });
  b.step(`retrieve ${HOSTILE}`, 'retrieval', { input: { query: HOSTILE }, output: [] });
  b.step('answer', 'llm', { input: { messages: [{ role: 'user', content: HOSTILE }] }, output: `I don't have information about ${HOSTILE}` });
  b.verdict(false, HOSTILE);
  const d = b.finish('ok', `I don't have information about ${HOSTILE}`).detail();
  return { d, blame: blameRun(d, { settings: DEFAULT_SETTINGS, toolStats: {} }) };
}

describe('reports', () => {
  it('the HTML report is one self-contained file with no scripts, and every piece of trace text is escaped', () => {
    const { d, blame } = hostileRun();
    const html = renderReport(d, blame, 'html');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    // No tag carries an event handler, a link or a source: the hostile text is only text.
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((t) => /\son\w+=|href=|\ssrc=/i.test(t))).toEqual([]);
    expect(html).toContain('&#60;img src=x onerror=alert(2)&#62;');
    expect(html).not.toContain('\u202E');
    expect(html).toContain('[U+202E]');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('<svg');
  });

  it('the HTML report shows the summary, the blamed step with reason and evidence, scores, tree and lineage', () => {
    const { d, blame } = hostileRun();
    const html = renderReport(d, blame, 'html');
    expect(blame.blamed[0].name.startsWith('retrieve')).toBe(true);
    for (const part of ['Blamed step', 'Reason:', 'Evidence', 'Step scores', 'Step tree', 'Lineage path', 'Symptoms']) expect(html).toContain(part);
  });

  it('the Markdown report neutralises HTML, links and table breaks in trace text', () => {
    const { d, blame } = hostileRun();
    const md = renderReport(d, blame, 'md');
    expect(md).not.toMatch(/<script|<img/i);
    expect(md).not.toContain('[click](javascript');
    expect(md).toContain('\\[click\\](javascript:alert(3))');
    expect(md).toContain('\\| pipe');
    expect(md).not.toContain('\u202E');
    expect(md).toContain('## Step scores');
    expect(md).toContain('## Lineage path');
  });

  it('the JSON report is one parseable document holding the blame verbatim', () => {
    const { d, blame } = hostileRun();
    const doc = JSON.parse(renderReport(d, blame, 'json'));
    expect(doc.blame).toEqual(blame);
    expect(doc.run.run_id).toBe('run-<b>x</b>');
    expect(doc.tree).toHaveLength(2);
  });

  it('a run that ended "ok" but failed its check reads failed in the report, as in the app, and runner-ups are suspects, never co-blamed', () => {
    const { d, blame } = hostileRun();
    expect(d.run.status).toBe('ok');
    const doc = JSON.parse(renderReport(d, blame, 'json'));
    expect(doc.run.state).toMatchObject({ state: 'failed', basis: 'detected' });
    expect(renderReport(d, blame, 'md')).toMatch(/\| State \| failed: /);
    const asserted = blameRun(d, { settings: DEFAULT_SETTINGS, toolStats: {}, asserted: true });
    const roles = JSON.parse(renderReport(d, asserted, 'json')).tree.map((r: { role: string | null }) => r.role);
    expect(roles).toContain('blamed');
    if (asserted.co_blamed.length === 0) expect(roles).not.toContain('co-blamed');
  });

  it('a healthy run says so and names no step', () => {
    const b = new TraceBuilder({ input: { q: 'capital of France?' } });
    b.step('answer', 'llm', { input: 'capital of France?', output: 'Paris.' });
    const d = b.finish('ok', 'Paris.').detail();
    const blame = blameRun(d, { settings: DEFAULT_SETTINGS, toolStats: {} });
    expect(renderReport(d, blame, 'md')).toContain('The run is healthy: no step is blamed.');
    expect(renderReport(d, blame, 'html')).toContain('The run is healthy');
  });
});
