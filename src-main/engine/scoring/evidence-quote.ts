/**
 * Verbatim quotes. Every quote the engine shows is a substring of one string
 * leaf (or the JSON text of a number or boolean leaf) of the named field, cut
 * to one line and at most QUOTE_MAX characters, so that a person can find it
 * with a text search in the trace.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { Run, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { stringLeaves } from './json-text';

export const QUOTE_MAX = 160;

type StepField = 'input' | 'output' | 'error' | 'metadata';

function fieldValue(step: Step, field: StepField): Json | null {
  if (field === 'error') return (step.error as unknown as Json) ?? null;
  if (field === 'metadata') return step.metadata as Json;
  return step[field];
}

/** A window of `text` around [start, end), kept on one line and within QUOTE_MAX. */
export function windowAround(text: string, start: number, end: number): string {
  end = Math.min(end, start + QUOTE_MAX);
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let lineEnd = text.indexOf('\n', end);
  if (lineEnd === -1) lineEnd = text.length;
  const room = Math.max(0, QUOTE_MAX - (end - start));
  const from = Math.max(lineStart, start - Math.floor(room / 2));
  const to = Math.min(lineEnd, end + (room - (start - from)));
  return text.slice(from, to).trim() || text.slice(start, end);
}

function quoteIn(value: Json | null | undefined, needle?: string): string | null {
  const leaves = stringLeaves(value ?? null).filter((l) => l.text.trim() !== '');
  if (leaves.length === 0) return null;
  if (needle !== undefined && needle !== '') {
    for (const l of leaves) {
      const i = l.text.indexOf(needle);
      if (i >= 0) return windowAround(l.text, i, i + needle.length);
    }
    const lower = needle.toLowerCase();
    for (const l of leaves) {
      const i = l.text.toLowerCase().indexOf(lower);
      // Lower-casing can change lengths outside ASCII; only trust it when it did not.
      if (i >= 0 && l.text.length === l.text.toLowerCase().length) return windowAround(l.text, i, i + needle.length);
    }
    return null;
  }
  const first = leaves[0].text;
  const start = first.search(/\S/);
  return windowAround(first, Math.max(0, start), Math.max(0, start) + Math.min(QUOTE_MAX, first.length));
}

/** Evidence from a step field; null when the field holds no text (or not the needle). */
export function quoteStep(step: Step, field: StepField, needle?: string): Evidence | null {
  const q = quoteIn(fieldValue(step, field), needle);
  return q === null ? null : { step_id: step.step_id, field, quote: q };
}

/** Evidence from the run itself (input, output, error or verdict); step_id is ''. */
export function quoteRun(run: Run, part: 'input' | 'output' | 'error' | 'verdict', needle?: string): Evidence | null {
  const value: Json | null =
    part === 'error' ? ((run.error as unknown as Json) ?? null) : part === 'verdict' ? ((run.verdict as unknown as Json) ?? null) : run[part];
  const q = quoteIn(value, needle);
  return q === null ? null : { step_id: '', field: 'run', quote: q };
}

/** True when the evidence is verbatim in the trace (used by tests and the benchmark). */
export function isVerbatim(evidence: Evidence, steps: Step[], run: Run): boolean {
  const inLeaves = (v: Json | null | undefined): boolean => stringLeaves(v ?? null).some((l) => l.text.includes(evidence.quote));
  if (evidence.field === 'run') {
    return [run.input, run.output, run.error as unknown as Json, run.verdict as unknown as Json].some(inLeaves);
  }
  const step = steps.find((s) => s.step_id === evidence.step_id);
  return step !== undefined && inLeaves(fieldValue(step, evidence.field));
}

/** A quote shortened for a one-sentence reason (still a verbatim substring). */
export function shortQuote(quote: string, max = 90): string {
  return quote.length <= max ? quote : `${quote.slice(0, max - 1).trimEnd()}…`;
}
