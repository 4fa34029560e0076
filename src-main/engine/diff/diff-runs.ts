/**
 * Diff of two runs: aligned steps (align-steps), per-step score deltas, the
 * first structural divergence (a step present in only one run; failing that,
 * the first step whose status or output differs) and a verdict. The verdict
 * follows the runs' outcomes first (passed → failed is a regression naming
 * B's blamed step; failed → passed an improvement naming A's blamed step);
 * between runs with the same outcome, the largest per-step score change of
 * at least DELTA_MIN decides.
 */
import type { BlameResult, DiffResult, DiffRow } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import { blameRun } from '../blame/blame-run';
import { assessRun, type ScoringContext } from '../scoring/score-run';
import { alignSteps } from './align-steps';

/** A score change smaller than this is noise (one check moving a little). */
const DELTA_MIN = 0.2;

function failedRun(d: RunDetail, blame: BlameResult): boolean {
  if (blame.asserted) return true;
  if (d.run.verdict) return !d.run.verdict.pass;
  return !blame.healthy;
}

function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  const a = JSON.stringify(x ?? null);
  const b = JSON.stringify(y ?? null);
  return a === b;
}

/**
 * `blames`: the runs' stored blame (with what the user asserted about them);
 * computed here when not given.
 */
export function diffRuns(a: RunDetail, b: RunDetail, ctx: ScoringContext, blames?: { a: BlameResult; b: BlameResult }): DiffResult {
  const sa = assessRun(a, ctx);
  const sb = assessRun(b, ctx);
  const aligned = alignSteps(a, b);
  const rows: DiffRow[] = aligned.map((r) => {
    const x = r.a === null ? null : a.steps[r.a];
    const y = r.b === null ? null : b.steps[r.b];
    const scoreA = r.a === null ? null : sa[r.a].score;
    const scoreB = r.b === null ? null : sb[r.b].score;
    const delta = scoreA !== null && scoreB !== null ? Math.round((scoreB - scoreA) * 1000) / 1000 : null;
    let change: DiffRow['change'];
    if (!x) change = 'added';
    else if (!y) change = 'removed';
    else if (x.status !== y.status || x.name !== y.name || x.type !== y.type || (delta !== null && Math.abs(delta) >= 0.001) || !sameJson(x.output, y.output) || !sameJson(x.error, y.error)) change = 'changed';
    else change = 'same';
    const side = (s: typeof x, score: number | null) =>
      s ? { step_id: s.step_id, name: s.name, type: s.type, score: score === null ? null : Math.round(score * 1000) / 1000, status: s.status } : null;
    return { key: r.key, a: side(x, scoreA), b: side(y, scoreB), delta, change };
  });

  const structural = rows.find((r) => r.change === 'added' || r.change === 'removed');
  const content = rows.find((r) => r.change === 'changed');
  const firstDivergence = structural
    ? { key: structural.key, kind: 'structure' as const, description: structural.change === 'added' ? `step "${structural.b!.name}" (${structural.key}) appears only in B` : `step "${structural.a!.name}" (${structural.key}) appears only in A` }
    : content
      ? { key: content.key, kind: 'content' as const, description: `step "${content.b!.name}" (${content.key}) ${content.a!.status !== content.b!.status ? `changed status from ${content.a!.status} to ${content.b!.status}` : 'produced a different output'}` }
      : null;

  const blameA = blames?.a ?? blameRun(a, ctx);
  const blameB = blames?.b ?? blameRun(b, ctx);
  const failA = failedRun(a, blameA);
  const failB = failedRun(b, blameB);
  const rowOf = (side: 'a' | 'b', stepId: string | undefined): DiffRow | undefined => (stepId ? rows.find((r) => r[side]?.step_id === stepId) : undefined);
  const stepOf = (r: DiffRow | undefined): DiffResult['step'] =>
    r ? { key: r.key, step_id_a: r.a?.step_id ?? null, step_id_b: r.b?.step_id ?? null, name: (r.b ?? r.a)!.name } : null;

  const differing = (r: DiffRow | undefined): DiffRow | undefined => (r && r.change !== 'same' ? r : undefined);
  let verdict: DiffResult['verdict'] = 'neutral';
  let step: DiffResult['step'] = null;
  let reason: string;
  const worst = rows.filter((r) => r.delta !== null).sort((x, y) => x.delta! - y.delta!)[0];
  const best = rows.filter((r) => r.delta !== null).sort((x, y) => y.delta! - x.delta!)[0];
  if (!failA && failB) {
    verdict = 'regression';
    const top = blameB.blamed[0];
    // The headline names a step that differs between the runs: B's blamed step when it changed, else where they part.
    const blamedRow = rowOf('b', top?.step_id);
    const r = differing(blamedRow) ?? (worst && worst.delta! < 0 ? worst : undefined) ?? structural ?? content;
    step = stepOf(r);
    reason = `A passed and B failed${top ? `; in B, step "${top.name}" is blamed: ${top.reason}` : ''}${
      top && blamedRow && blamedRow.change === 'same' ? ` (that step is the same in both runs${r ? `; the runs first differ at step "${(r.b ?? r.a)!.name}"` : ''})` : ''
    }`;
  } else if (failA && !failB) {
    verdict = 'improvement';
    const top = blameA.blamed[0];
    const blamedRow = rowOf('a', top?.step_id);
    const r = differing(blamedRow) ?? (best && best.delta! > 0 ? best : undefined) ?? structural ?? content;
    step = stepOf(r);
    const blamedNow = !top ? '' : !blamedRow?.b ? ' is gone' : blamedRow.change === 'same' ? ' is the same in both runs' : ` now scores ${blamedRow.b.score ?? 'n/a'}`;
    reason = `A failed and B passed${top ? `; the step blamed in A, "${top.name}",${blamedNow}` : ''}${r && r !== blamedRow ? `; the runs first differ at step "${(r.b ?? r.a)!.name}"` : ''}`;
  } else {
    const down = worst && worst.delta! <= -DELTA_MIN ? worst : undefined;
    const up = best && best.delta! >= DELTA_MIN ? best : undefined;
    if (down && (!up || -down.delta! >= up.delta!)) {
      verdict = 'regression';
      step = stepOf(down);
      reason = `both runs ${failA ? 'failed' : 'passed'}, but step "${down.b!.name}" dropped from ${down.a!.score} to ${down.b!.score}`;
    } else if (up) {
      verdict = 'improvement';
      step = stepOf(up);
      reason = `both runs ${failA ? 'failed' : 'passed'}, and step "${up.b!.name}" rose from ${up.a!.score} to ${up.b!.score}`;
    } else {
      reason = `both runs ${failA ? 'failed' : 'passed'} and no step's score moved by ${DELTA_MIN} or more`;
    }
  }
  return { run_a: a.run.run_id, run_b: b.run.run_id, verdict, step, reason, first_divergence: firstDivergence, rows };
}
