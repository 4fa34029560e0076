/**
 * Markdown report. Every piece of trace text goes through escapeMarkdown,
 * which also neutralises raw HTML, so a viewer that renders Markdown shows
 * it as text.
 */
import type { BlamedStep } from '../../../src-shared/analysis';
import { clip, escapeMarkdown as md } from './escape-text';
import { fmtScore, fmtTime, type ReportModel } from './report-model';

function blamedSection(b: BlamedStep, title: string): string[] {
  const lines = [
    `### ${title}: ${md(b.name)} (${b.type}, step ${b.index})`,
    '',
    `- **Blame score:** ${b.score.toFixed(2)} · **confidence:** ${b.confidence} · **rule:** ${md(b.rule)}`,
    `- **Reason:** ${md(b.reason)}`,
  ];
  if (b.evidence.length > 0) {
    lines.push('- **Evidence** (verbatim from the trace):');
    for (const e of b.evidence) lines.push(`  - ${e.step_id ? `step ${md(e.step_id)} ${e.field}` : 'the run itself'}: “${md(clip(e.quote, 300))}”`);
  }
  lines.push('');
  return lines;
}

export function renderMarkdown(m: ReportModel): string {
  const { run } = m.detail;
  const b = m.blame;
  const out: string[] = [];
  out.push(`# Traceback report: run ${md(run.run_id)}`, '');
  out.push('| | |', '|---|---|');
  out.push(`| Pipeline | ${md(run.pipeline)} |`);
  out.push(`| State | ${m.state.label}: ${md(clip(m.state.reason, 300))} |`);
  out.push(`| Status | ${run.status} |`);
  out.push(`| Verdict | ${run.verdict ? `${run.verdict.pass ? 'pass' : 'fail'}${run.verdict.detail ? ` — ${md(clip(run.verdict.detail, 300))}` : ''}` : 'none recorded'} |`);
  out.push(`| Started | ${fmtTime(run.started_at)} |`);
  out.push(`| Duration | ${run.duration_ms === null ? '–' : `${Math.round(run.duration_ms)} ms`} |`);
  out.push(`| Steps | ${m.detail.steps.length} |`, '');

  out.push('## Blame', '');
  if (b.healthy) {
    out.push(m.state.state === 'healthy' ? 'The run is healthy: no step is blamed.' : `The run is ${m.state.label}: ${md(m.state.reason)} No step is blamed.`, '');
  } else {
    out.push(`**Failure:** ${md(b.failure?.description ?? 'unknown')}`, '');
    if (b.blamed[0]) out.push(...blamedSection(b.blamed[0], 'Blamed step'));
    else out.push('No step could be blamed with evidence.', '');
    for (const c of b.co_blamed) out.push(...blamedSection(c, 'Co-blamed'));
    if (b.blamed.length > 1) {
      out.push('Other candidates:', '');
      for (const c of b.blamed.slice(1, 6)) out.push(`- ${md(c.name)} — ${c.score.toFixed(2)} (${md(c.rule)}): ${md(clip(c.reason, 200))}`);
      out.push('');
    }
    if (b.symptoms.length > 0) {
      out.push('### Symptoms', '');
      for (const s of b.symptoms.slice(0, 50)) out.push(`- ${md(s.name)} (step ${md(s.step_id)}): ${md(clip(s.reason, 200))}`);
      out.push('');
    }
  }
  if ((b.recovered ?? []).length > 0) {
    out.push('### Recovered (not blamed)', '');
    for (const r of b.recovered!) out.push(`- ${md(r.name)} (step ${md(r.step_id)}): ${md(r.reason)}`);
    out.push('');
  }
  if (m.lineage.length > 0) {
    out.push('## Lineage path', '', m.lineage.map((l) => md(l.name)).join(' → '), '');
  }
  out.push('## Step scores', '', '| # | Step | Type | Status | Score | Worst check |', '|---|---|---|---|---|---|');
  for (const row of [...m.tree].sort((x, y) => x.step.index - y.step.index)) {
    const worst = row.health?.checks.filter((c) => !c.name.startsWith('retrieval.passage')).sort((x, y) => x.value - y.value)[0];
    out.push(
      `| ${row.step.index} | ${md(clip(row.step.name, 80))}${row.role ? ` (${row.role})` : ''} | ${row.step.type} | ${row.step.status} | ${fmtScore(row.health?.score)} | ${worst ? `${md(worst.name)}: ${md(clip(worst.explanation ?? '', 120))}` : ''} |`,
    );
  }
  out.push('', '## Step tree', '');
  for (const row of m.tree) {
    out.push(`${'  '.repeat(row.depth)}- ${md(row.step.name)} · ${row.step.type} · ${row.step.status} · ${fmtScore(row.health?.score)}${row.role ? ` · **${row.role}**` : ''}`);
  }
  out.push('');
  return out.join('\n');
}
