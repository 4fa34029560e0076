/**
 * A call that failed without leaving a span (an uninstrumented HTTP request,
 * a swallowed exception) is often visible only as error text that a later
 * step received. Such text is surfaced on the first step that carries it, as
 * `metadata.upstream_error`, unless an errored step in the run explains it.
 */
import type { Json } from '../../../../src-shared/trace-format';
import type { ForeignStep } from './foreign-run';

// Error-shaped text: "Error: …", "TypeError: …", "ValueError(…", a Python
// traceback, an HTTP status with its reason phrase or after "status"/"HTTP".
const ERROR_TEXT = new RegExp(
  [
    String.raw`\b[A-Z]?[A-Za-z]*(?:Error|Exception)\b\s*[:(]`,
    String.raw`\bTraceback \(most recent call last\)`,
    String.raw`\b[45]\d\d (?:Bad Request|Unauthorized|Forbidden|Not Found|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b`,
    String.raw`\b(?:HTTP|status(?: code)?)[ :=]+[45]\d\d\b`,
  ].join('|'),
);
const MAX_QUOTE = 300;

function stringLeaves(value: Json | undefined, out: string[], depth = 0): void {
  if (value === undefined || value === null || depth > 30) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out, depth + 1);
  else if (typeof value === 'object') for (const v of Object.values(value)) stringLeaves(v, out, depth + 1);
}

function errorLines(value: Json | undefined): string[] {
  const leaves: string[] = [];
  stringLeaves(value, leaves);
  const found: string[] = [];
  for (const leaf of leaves) {
    if (!ERROR_TEXT.test(leaf)) continue;
    for (const line of leaf.split('\n')) {
      if (ERROR_TEXT.test(line)) found.push(line.trim().slice(0, MAX_QUOTE));
    }
  }
  return found;
}

/** Error-shaped lines of a step's input, then its output (what a StepSummary keeps). */
export function stepErrorLines(input: Json | undefined, output: Json | undefined): string[] {
  const lines = errorLines(input);
  for (const l of errorLines(output)) lines.push(l);
  return lines;
}

export interface UpstreamError {
  stepId: string;
  quote: string;
}

export function findUpstreamErrors(ordered: ForeignStep[]): UpstreamError[] {
  const recorded = ordered
    .filter((s) => s.status === 'error' && s.error)
    .map((s) => s.error!.message.split('\n')[0].trim())
    .filter((m) => m.length >= 8);
  const explained = (line: string) => recorded.some((m) => line.includes(m.slice(0, 60)) || m.includes(line));
  const seen = new Set<string>();
  const found: UpstreamError[] = [];
  for (const step of ordered) {
    if (step.status === 'error') continue;
    for (const line of step.summary ? step.summary.errorLines : stepErrorLines(step.input, step.output)) {
      if (seen.has(line)) continue;
      seen.add(line);
      if (!explained(line)) found.push({ stepId: step.id, quote: line });
    }
  }
  return found;
}
