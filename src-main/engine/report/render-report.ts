/** renderReport: the run, its blame, scores, tree and lineage as Markdown, HTML or JSON. */
import type { BlameResult } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import { renderHtml } from './render-html';
import { renderMarkdown } from './render-markdown';
import { buildReportModel } from './report-model';

export type ReportFormatName = 'md' | 'html' | 'json';

export function renderReport(detail: RunDetail, blame: BlameResult, format: ReportFormatName): string {
  const m = buildReportModel(detail, blame);
  if (format === 'md') return renderMarkdown(m);
  if (format === 'html') return renderHtml(m);
  const { run } = detail;
  return `${JSON.stringify(
    {
      report_version: 1,
      run: {
        run_id: run.run_id,
        pipeline: run.pipeline,
        status: run.status,
        state: m.state,
        verdict: run.verdict,
        started_at: run.started_at,
        duration_ms: run.duration_ms,
        steps: detail.steps.length,
        input: run.input,
        output: run.output,
        error: run.error,
      },
      blame,
      tree: m.tree.map((r) => ({ step_id: r.step.step_id, parent_id: r.step.parent_id, depth: r.depth, name: r.step.name, type: r.step.type, status: r.step.status, score: r.health?.score ?? null, role: r.role })),
      lineage_path: m.lineage,
    },
    null,
    2,
  )}\n`;
}
