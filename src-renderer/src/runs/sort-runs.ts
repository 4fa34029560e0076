import type { RunSummary } from '../../../src-shared/model';
import type { RunSort } from '../state/route';

export function sortRuns(runs: RunSummary[], sort: RunSort): RunSummary[] {
  const out = [...runs];
  const byStart = (a: RunSummary, b: RunSummary) => b.started_at - a.started_at || a.run_id.localeCompare(b.run_id);
  switch (sort) {
    case 'newest':
      return out.sort(byStart);
    case 'oldest':
      return out.sort((a, b) => -byStart(a, b));
    case 'slowest':
      return out.sort((a, b) => (b.duration_ms ?? -1) - (a.duration_ms ?? -1) || byStart(a, b));
    case 'blame':
      return out.sort((a, b) => (b.blame_score ?? -1) - (a.blame_score ?? -1) || byStart(a, b));
    case 'steps':
      return out.sort((a, b) => b.steps - a.steps || byStart(a, b));
  }
}

export type TimelineRow = { kind: 'group'; pipeline: string; count: number } | { kind: 'run'; run: RunSummary };

/** Timeline rows: one header per pipeline (alphabetical), then its runs oldest first. */
export function timelineRows(runs: RunSummary[]): { rows: TimelineRow[]; start: number; end: number } {
  const groups = new Map<string, RunSummary[]>();
  let start = Infinity;
  let end = -Infinity;
  for (const run of runs) {
    let g = groups.get(run.pipeline);
    if (!g) groups.set(run.pipeline, (g = []));
    g.push(run);
    start = Math.min(start, run.started_at);
    end = Math.max(end, run.started_at + (run.duration_ms ?? 0));
  }
  const rows: TimelineRow[] = [];
  for (const pipeline of [...groups.keys()].sort()) {
    const g = groups.get(pipeline)!.sort((a, b) => a.started_at - b.started_at);
    rows.push({ kind: 'group', pipeline, count: g.length });
    for (const run of g) rows.push({ kind: 'run', run });
  }
  if (!Number.isFinite(start)) return { rows, start: 0, end: 1 };
  if (end <= start) end = start + 1;
  return { rows, start, end };
}
