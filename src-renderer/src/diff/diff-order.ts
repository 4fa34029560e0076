import type { RunSummary } from '../../../src-shared/model';
import { runState } from '../../../src-shared/run-state';

/**
 * Which of two runs is the baseline (A): the healthy one when exactly one is
 * healthy, else the older one. Tick order used to decide, and a failed run
 * ticked first read as the baseline, so a healthy→failed pair said
 * "Improvement". The user can still swap A and B in the diff view.
 */
export function baselineFirst(x: RunSummary, y: RunSummary): [string, string] {
  const healthyX = runState(x).state === 'healthy';
  const healthyY = runState(y).state === 'healthy';
  if (healthyX !== healthyY) return healthyX ? [x.run_id, y.run_id] : [y.run_id, x.run_id];
  return x.started_at <= y.started_at ? [x.run_id, y.run_id] : [y.run_id, x.run_id];
}

/** The row a diff opens at: the row the user chose, else the regressed/improved step, else the first divergence, else the first changed row. */
export function openingKey(diff: { step: { key: string } | null; first_divergence: { key: string } | null; rows: { key: string; change: string }[] }, chosen: string | null): string | null {
  return chosen ?? diff.step?.key ?? diff.first_divergence?.key ?? diff.rows.find((r) => r.change !== 'same')?.key ?? null;
}

/** Inputs compared as canonical JSON text (key order ignored); null when either run recorded none. */
export function inputsDiffer(a: unknown, b: unknown): boolean | null {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  return canonical(a) !== canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
