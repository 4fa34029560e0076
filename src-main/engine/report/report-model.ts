/**
 * What every report format shows, computed once: run summary, blame, the
 * step tree as (depth, step) rows, and the lineage path as step names.
 */
import type { BlameResult, StepHealth } from '../../../src-shared/analysis';
import type { RunDetail, Step } from '../../../src-shared/model';
import { runState, stepRoles, type RunState, type StepRole } from '../../../src-shared/run-state';
import { INVALID_TIME_TEXT, usableTimeMs } from '../../../src-shared/usable-time';

interface TreeRow {
  depth: number;
  step: Step;
  health: StepHealth | undefined;
  role: StepRole | null;
}

export interface ReportModel {
  detail: RunDetail;
  blame: BlameResult;
  /** The run's state by the rule every view uses (src-shared/run-state.ts). */
  state: RunState;
  tree: TreeRow[];
  lineage: { step_id: string; name: string }[];
}

export function buildReportModel(detail: RunDetail, blame: BlameResult): ReportModel {
  const health = new Map(blame.step_scores.map((h) => [h.step_id, h]));
  const role = stepRoles(blame);
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
  return { detail, blame, state: runState({ ...detail.run, steps: detail.steps.length }, blame), tree, lineage };
}

export function fmtScore(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : x.toFixed(2);
}

export function fmtTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (usableTimeMs(ms) === null) return INVALID_TIME_TEXT;
  return new Date(ms).toISOString();
}
