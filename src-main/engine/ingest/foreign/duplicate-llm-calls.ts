/**
 * The same model call recorded twice by two instrumentation layers (e.g.
 * LangChain's LLM span and the openai client's span inside it). Both are kept;
 * the later-starting one is marked `duplicate_of` so tokens and blame are
 * counted once.
 */
import type { Json } from '../../../../src-shared/trace-format';
import type { ForeignStep } from './foreign-run';

// Layers record the same call a few ms apart; SDK clocks tick in ms.
const NESTING_TOLERANCE_MS = 5;

/** Message content nests a few levels at most; a hostile file may nest thousands (no stack overflow here). */
const MAX_TEXT_DEPTH = 20;

function text(value: Json | undefined, depth = 0): string {
  if (value === undefined || value === null || depth > MAX_TEXT_DEPTH) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => text(v, depth + 1)).join('\n');
  if (typeof value === 'object') {
    if ('content' in value) return text(value.content, depth + 1);
    if ('messages' in value) return text(value.messages, depth + 1);
  }
  return '';
}

/**
 * Layers that record one call do so within milliseconds, so the spans sit
 * next to each other in start order: comparing with the most recent calls
 * only keeps this linear on traces of 100k model calls.
 */
const RECENT_CALLS = 64;

function nested(inner: ForeignStep, outer: ForeignStep): boolean {
  if (inner.end === null || outer.end === null) return false;
  return inner.start >= outer.start - NESTING_TOLERANCE_MS && inner.end <= outer.end + NESTING_TOLERANCE_MS;
}

function sameCall(a: ForeignStep, b: ForeignStep): boolean {
  const ua = a.usage;
  const ub = b.usage;
  if (ua?.input_tokens !== undefined && ub?.input_tokens !== undefined && ua.output_tokens !== undefined && ub.output_tokens !== undefined) {
    return ua.input_tokens === ub.input_tokens && ua.output_tokens === ub.output_tokens;
  }
  const oa = text(a.output).trim();
  if (oa !== '' && oa === text(b.output).trim()) return true;
  const ia = text(a.input).trim();
  return ia !== '' && ia === text(b.input).trim() && !a.output && !b.output;
}

/** Step ids (in the given start order) that repeat an earlier step's model call, mapped to that step's id. */
export function findDuplicateLlmCalls(ordered: ForeignStep[]): Map<string, string> {
  const duplicates = new Map<string, string>();
  const originals: ForeignStep[] = [];
  for (const step of ordered) {
    if (step.type !== 'llm') continue;
    let original: ForeignStep | undefined;
    for (let i = originals.length - 1; i >= Math.max(0, originals.length - RECENT_CALLS) && !original; i--) {
      const o = originals[i];
      if ((nested(step, o) || nested(o, step)) && sameCall(o, step)) original = o;
    }
    if (original) duplicates.set(step.id, original.id);
    else originals.push(step);
  }
  return duplicates;
}
