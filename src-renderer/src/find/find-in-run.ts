/**
 * Find in a run: which steps hold some text (in their name, input, output or
 * error), and the roll-up of steps that need a look (errors, warnings, low
 * scores). Pure functions over the steps the run model holds; a step whose
 * payloads are not loaded is searched by what it has (its name and error).
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { stringLeaves } from '../text/json-text';
import type { StepTree } from '../graph/step-tree';

type FindField = 'name' | 'input' | 'output' | 'error';

export interface FindHit {
  stepId: string;
  /** Where the text was found, in this order. */
  fields: FindField[];
  /** Occurrences over all fields. */
  count: number;
}

/**
 * Lower case with every run of whitespace made one space: text copied from the
 * step panel or the blame evidence (wrapped lines, pretty-printed JSON) still
 * finds the value it came from.
 */
function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

type Haystacks = Record<FindField, string>;
const cache = new WeakMap<Step, Haystacks>();

/** A step's searchable text, built once per step object (payloads can be large). */
function haystacks(step: Step): Haystacks {
  let h = cache.get(step);
  if (!h) {
    const leaves = (v: Json | null) => (v === null || v === undefined ? '' : normalise(stringLeaves(v).join(' \n ')));
    h = {
      name: normalise(step.name),
      input: leaves(step.input),
      output: leaves(step.output),
      error: step.error ? normalise(`${step.error.type}: ${step.error.message}`) : '',
    };
    cache.set(step, h);
  }
  return h;
}

function occurrences(hay: string, needle: string): number {
  if (!hay || hay.length < needle.length) return 0;
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

const FIELDS: FindField[] = ['name', 'input', 'output', 'error'];

/** Steps holding `query`, in start order. An empty query finds nothing. */
export function findInRun(steps: Step[], query: string): FindHit[] {
  const needle = normalise(query);
  if (!needle) return [];
  const hits: FindHit[] = [];
  for (const step of steps) {
    const h = haystacks(step);
    let count = 0;
    const fields: FindField[] = [];
    for (const f of FIELDS) {
      const c = occurrences(h[f], needle);
      if (c > 0) {
        count += c;
        fields.push(f);
      }
    }
    if (count > 0) hits.push({ stepId: step.step_id, fields, count });
  }
  return hits;
}


export interface Rollup {
  errors: string[];
  warnings: string[];
  'low-score': string[];
}

/**
 * Steps that need a look, each in start order:
 *  - errors: the step itself failed;
 *  - warnings: the step did not fail but something under it did (a retried or
 *    caught error an "ok" parent hides), or it carries an error record, or it never ended;
 *  - low score: a scorer rated it below `lowScore`.
 */
export function rollup(tree: StepTree, scoreOf: (id: string) => number | null, lowScore: number): Rollup {
  const out: Rollup = { errors: [], warnings: [], 'low-score': [] };
  const holdsError = new Set<string>();
  for (const s of tree.steps) {
    if (s.status !== 'error') continue;
    let p = tree.parentOf(s.step_id);
    while (p !== null && !holdsError.has(p)) {
      holdsError.add(p);
      p = tree.parentOf(p);
    }
  }
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
