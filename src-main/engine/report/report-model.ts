/**
 * What every report format shows, computed once: run summary, blame, the
 * step tree as (depth, step) rows, and the lineage path as step names.
 */
import type { BlameResult, StepHealth } from '../../../src-shared/analysis';
import type { RunDetail, Step } from '../../../src-shared/model';

interface TreeRow {
  depth: number;
  step: Step;
  health: StepHealth | undefined;
  role: 'blamed' | 'co-blamed' | 'symptom' | 'recovered' | null;
}

export interface ReportModel {
  detail: RunDetail;
  blame: BlameResult;
  tree: TreeRow[];
  lineage: { step_id: string; name: string }[];
}

export function buildReportModel(detail: RunDetail, blame: BlameResult): ReportModel {
  const health = new Map(blame.step_scores.map((h) => [h.step_id, h]));
  const role = new Map<string, TreeRow['role']>();
  for (const r of blame.recovered ?? []) role.set(r.step_id, 'recovered');
  for (const s of blame.symptoms) role.set(s.step_id, 'symptom');
  for (const c of blame.co_blamed) role.set(c.step_id, 'co-blamed');
  if (blame.blamed[0]) role.set(blame.blamed[0].step_id, 'blamed');
  const ids = new Set(detail.steps.map((s) => s.step_id));
  const children = new Map<string | null, Step[]>();
  for (const s of detail.steps) {
    const p = s.parent_id !== null && ids.has(s.parent_id) ? s.parent_id : null;
    const list = children.get(p);
    if (list) list.push(s);
    else children.set(p, [s]);
  }
  const tree: TreeRow[] = [];
  const seen = new Set<string>();
  const stack: { s: Step; depth: number }[] = [...(children.get(null) ?? [])].reverse().map((s) => ({ s, depth: 0 }));
  while (stack.length > 0) {
    const { s, depth } = stack.pop()!;
    if (seen.has(s.step_id)) continue;
    seen.add(s.step_id);
    tree.push({ depth, step: s, health: health.get(s.step_id), role: role.get(s.step_id) ?? null });
    const kids = children.get(s.step_id) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ s: kids[i], depth: depth + 1 });
  }
  // Steps caught in a parent cycle (corrupt data) are still listed.
  for (const s of detail.steps) if (!seen.has(s.step_id)) tree.push({ depth: 0, step: s, health: health.get(s.step_id), role: role.get(s.step_id) ?? null });
  const byId = new Map(detail.steps.map((s) => [s.step_id, s]));
  const lineage = blame.lineage_path.map((id) => ({ step_id: id, name: byId.get(id)?.name ?? id }));
  return { detail, blame, tree, lineage };
}

export function fmtScore(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : x.toFixed(2);
}

export function fmtTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return new Date(ms).toISOString();
}
