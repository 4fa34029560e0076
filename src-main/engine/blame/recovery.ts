/**
 * Errors the run recovered from are not blamed. A failed step (an error, or
 * a hard check such as an error payload) counts as recovered when
 *  - retry: a later step with the same name and type under the same parent
 *    ended healthy;
 *  - fallback: (errors only) the parent — or the run, for a root step —
 *    ended ok and a later sibling of the same type ended healthy;
 *  - contained: (errors only) the parent or run ended ok, and the final
 *    output neither quotes the error nor apologises for a failure.
 */
import type { RunDetail } from '../../../src-shared/model';
import type { StepAssessment } from '../scoring/score-run';
import type { Settings } from '../scoring/settings';
import { jsonText } from '../text/json-text';
import type { RunGraph } from './run-graph';
import { siblingsOf, typeKeyOf } from './run-graph';
import { firstMatch, patternsOf } from './final-answer-signals';
import { S_ERROR, S_OK } from './step-codes';

export interface Recovery {
  by: number | null;
  kind: 'retry' | 'fallback' | 'contained';
  reason: string;
}


/** Whether a step assessed as `a`, whose status code is `status` (step-codes.ts), failed: it raised, or a hard check found it unhealthy. */
export function isFailed(a: StepAssessment, status: number, settings: Settings): boolean {
  if (a.duplicateOf !== null) return false;
  if (status === S_ERROR) return true;
  const checks = a.checks;
  const floor = settings.scoring.unhealthy_below;
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i];
    if (c.hard && !c.info && c.value < floor) return true;
  }
  return false;
}

function healthy(a: StepAssessment, status: number, settings: Settings): boolean {
  return status === S_OK && !isFailed(a, status, settings) && (a.score === null || a.score >= settings.scoring.unhealthy_below);
}

export function findRecoveries(g: RunGraph, assess: StepAssessment[], settings: Settings): Map<number, Recovery> {
  const out = new Map<number, Recovery>();
  const detail: RunDetail = g.detail;
  const finalText = jsonText(detail.run.output).slice(0, 20_000);
  const runOk = detail.run.status === 'ok' || detail.run.status === 'running';
  // Per sibling group, the latest healthy position by type and name, and by type: keyed by the graph's codes
  // (typeKeyOf, nameIds), so that a group of 100,000 siblings is indexed without reading their step objects.
  type Group = { byName: Map<number | string, Map<number, number>>; byType: Map<number | string, number> };
  const groups = new Map<number, Group>();
  const groupOf = (p: number): Group => {
    const parent = g.parent[p];
    let grp = groups.get(parent);
    if (grp) return grp;
    grp = { byName: new Map(), byType: new Map() };
    const sibs = siblingsOf(g, p);
    // An index loop: for...of here made an iterator result per sibling (~4 MB on a root with 100,000 children).
    for (let i = 0; i < sibs.length; i++) {
      const s = sibs[i];
      if (!g.live[s] || !healthy(assess[s], g.statuses[s], settings)) continue;
      const type = typeKeyOf(g, s);
      const name = g.nameIds[s];
      let names = grp.byName.get(type);
      if (!names) grp.byName.set(type, (names = new Map()));
      const prev = names.get(name);
      if (prev === undefined || s > prev) names.set(name, s);
      const pt = grp.byType.get(type);
      if (pt === undefined || s > pt) grp.byType.set(type, s);
    }
    groups.set(parent, grp);
    return grp;
  };

  for (let p = 0; p < assess.length; p++) {
    if (!g.live[p] || !isFailed(assess[p], g.statuses[p], settings)) continue;
    const s = g.steps[p];
    const grp = groupOf(p);
    const retry = grp.byName.get(typeKeyOf(g, p))?.get(g.nameIds[p]);
    if (retry !== undefined && retry > p) {
      out.set(p, { by: retry, kind: 'retry', reason: `a later "${s.name}" (step ${g.steps[retry].step_id}) succeeded` });
      continue;
    }
    if (s.status !== 'error') continue;
    const parent = g.parent[p];
    const caught = parent >= 0 ? g.steps[parent].status === 'ok' : runOk;
    if (!caught) continue;
    const fallback = grp.byType.get(typeKeyOf(g, p));
    if (fallback !== undefined && fallback > p && g.steps[fallback].type !== 'agent') {
      out.set(p, { by: fallback, kind: 'fallback', reason: `the ${s.type} step "${g.steps[fallback].name}" ran after it and succeeded` });
      continue;
    }
    const msg = (s.error?.message ?? '').trim().slice(0, 60);
    const quoted = msg.length >= 8 && finalText.includes(msg);
    if ((finalText === '' && detail.run.status === 'ok') || (finalText !== '' && !quoted && firstMatch(finalText, patternsOf(settings.failure.apology_patterns)) === null)) {
      out.set(p, { by: null, kind: 'contained', reason: `${parent >= 0 ? `its parent "${g.steps[parent].name}"` : 'the run'} caught it and the final output does not show it` });
    }
  }
  return out;
}
