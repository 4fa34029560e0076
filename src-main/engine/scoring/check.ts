/**
 * A check is one scorer's verdict on one aspect of a step: a value in [0, 1]
 * (1 healthy), the words explaining it, and for the blame engine whether it
 * is "hard" (an error, a refusal, a truncation: a failure on its own, with or
 * without a verdict) and the verbatim quote it rests on.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { Score } from '../../../src-shared/model';

export interface Check extends Score {
  hard: boolean;
  /** Informational checks (per-passage relevance) are shown but do not set the step's score. */
  info?: boolean;
  evidence?: Evidence;
}

/**
 * Makes V8 store a string built by concatenation as one flat string. A template literal is a tree of
 * concatenations (a V8 cons string, ~40 bytes per piece), and an explanation lives as long as its check: the
 * 4,300 retrievals of the synthetic 100,000-step run kept ~1.7 MB of such trees through every scavenge of a
 * blame (6.2 → 4.6 MB retained by their checks, measured with --expose-gc). Reading a character flattens the tree
 * in place; the content is unchanged.
 */
function flatten(s: string): void {
  if (s.length > 0) s.charCodeAt(0);
}

export function makeCheck(
  source: string,
  name: string,
  value: number,
  explanation: string,
  opts: { hard?: boolean; info?: boolean; evidence?: Evidence | null } = {},
): Check {
  flatten(explanation);
  const c: Check = { name, value: Math.max(0, Math.min(1, value)), explanation, source, hard: opts.hard ?? false };
  if (opts.info) c.info = true;
  if (opts.evidence) c.evidence = opts.evidence;
  return c;
}

/**
 * No checks: shared and frozen. A scorer that finds nothing returns it instead of a new empty array: on a
 * 100,000-step run the tool and LLM scorers' empty arrays were 3 MB of each blame's garbage (allocation profile).
 */
export const NO_CHECKS: Check[] = Object.freeze([]) as unknown as Check[];

/** The public shape (Score): the blame-only fields stay inside the engine. */
const scoreCache = new WeakMap<Check, Score>();

export function toScore(c: Check): Score {
  if (Object.isFrozen(c)) {
    let s = scoreCache.get(c);
    if (!s) scoreCache.set(c, (s = Object.freeze({ name: c.name, value: c.value, explanation: c.explanation, source: c.source }) as Score));
    return s;
  }
  return { name: c.name, value: Math.round(c.value * 1000) / 1000, explanation: c.explanation, source: c.source };
}
