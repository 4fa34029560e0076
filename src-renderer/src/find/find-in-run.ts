/**
 * Find in a run: which steps hold some text (src-shared/find-steps.ts), and
 * the roll-up of steps that need a look (errors, warnings, low scores). Pure
 * functions over the steps the run model holds; a run read in parts is
 * searched by the engine (findSteps), which has every payload.
 */
import type { Step } from '../../../src-shared/model';
import { findHaystacks, matchHaystacks, normaliseFindText, type FindHit, type Haystacks } from '../../../src-shared/find-steps';
import type { StepTree } from '../graph/step-tree';

export type { FindHit } from '../../../src-shared/find-steps';

const cache = new WeakMap<Step, Haystacks>();

/** A step's searchable text, built once per step object (payloads can be large). */
function haystacks(step: Step): Haystacks {
  let h = cache.get(step);
  if (!h) {
    h = findHaystacks(step);
    cache.set(step, h);
  }
  return h;
}

/** Steps holding `query`, in start order. An empty query finds nothing. */
export function findInRun(steps: Step[], query: string): FindHit[] {
  const needle = normaliseFindText(query);
  if (!needle) return [];
  const hits: FindHit[] = [];
  for (const step of steps) {
    const hit = matchHaystacks(step.step_id, haystacks(step), needle);
    if (hit) hits.push(hit);
  }
  return hits;
}

export interface Rollup {
  errors: string[];
  warnings: string[];
  'low-score': string[];
}

/**
 * Steps that need a look, each in start order (`holdsError`: the steps holding a failed one, graph/step-tree.ts holdsFailure):
 *  - errors: the step itself failed;
 *  - warnings: the step did not fail but something under it did (a retried or
 *    caught error an "ok" parent hides), or it carries an error record, or it never ended;
 *  - low score: a scorer rated it below `lowScore`.
 */
export function rollup(tree: StepTree, holdsError: Set<string>, scoreOf: (id: string) => number | null, lowScore: number): Rollup {
  const out: Rollup = { errors: [], warnings: [], 'low-score': [] };
  for (const s of tree.steps) {
    if (s.status === 'error') out.errors.push(s.step_id);
    else if (holdsError.has(s.step_id) || s.error !== null || s.ended_at === null) out.warnings.push(s.step_id);
    const score = scoreOf(s.step_id);
    if (score !== null && score < lowScore) out['low-score'].push(s.step_id);
  }
  return out;
}

/** Names that occur more than once in the run: rows of such steps show their path. */
export function repeatedNames(steps: Step[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const s of steps) {
    if (seen.has(s.name)) twice.add(s.name);
    else seen.add(s.name);
  }
  return twice;
}

/** "grandparent › parent › step", shortened from the root side to `max` names. */
export function stepPath(tree: StepTree, id: string, max = 4): string {
  const names: string[] = [];
  let cur: string | null = id;
  const seen = new Set<string>();
  while (cur !== null && !seen.has(cur)) {
    seen.add(cur);
    names.push(tree.byId.get(cur)?.name ?? cur);
    cur = tree.parentOf(cur);
  }
  names.reverse();
  return names.length > max ? ['…', ...names.slice(-max)].join(' › ') : names.join(' › ');
}
