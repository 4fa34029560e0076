/**
 * Find in a run: does a step hold some text in its name, input, output or
 * error? One definition for the renderer (steps it holds whole) and the
 * engine (runs read in parts, where only the engine has every payload).
 * Text is compared lower-cased with each run of whitespace made one space,
 * over the string leaves of JSON values (keys included), so text copied from
 * the step panel or the blame evidence finds the value it came from.
 */
import type { Json, TraceError } from './trace-format';

export type FindField = 'name' | 'input' | 'output' | 'error';

export interface FindHit {
  stepId: string;
  /** Where the text was found, in this order. */
  fields: FindField[];
  /** Occurrences over all fields. */
  count: number;
}

/** What a step is searched by. */
export interface FindableStep {
  step_id: string;
  name: string;
  input: Json | null;
  output: Json | null;
  error: TraceError | null;
}

export type Haystacks = Record<FindField, string>;

export const FIND_FIELDS: FindField[] = ['name', 'input', 'output', 'error'];

/** All string leaves of a value (and its keys), so a search can count matches without rendering. */
export function stringLeaves(value: Json | undefined, out: string[] = []): string[] {
  const stack: (Json | undefined)[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        stack.push(x);
      }
    }
  }
  return out;
}

export function normaliseFindText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

export function findHaystacks(step: FindableStep): Haystacks {
  const leaves = (v: Json | null) => (v === null || v === undefined ? '' : normaliseFindText(stringLeaves(v).join(' \n ')));
  return {
    name: normaliseFindText(step.name),
    input: leaves(step.input),
    output: leaves(step.output),
    error: step.error ? normaliseFindText(`${step.error.type}: ${step.error.message}`) : '',
  };
}

function occurrences(hay: string, needle: string): number {
  if (!hay || hay.length < needle.length) return 0;
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The hit of an already normalised needle in a step's haystacks, or null. */
export function matchHaystacks(stepId: string, h: Haystacks, needle: string): FindHit | null {
  let count = 0;
  const fields: FindField[] = [];
  for (const f of FIND_FIELDS) {
    const c = occurrences(h[f], needle);
    if (c > 0) {
      count += c;
      fields.push(f);
    }
  }
  return count > 0 ? { stepId, fields, count } : null;
}
