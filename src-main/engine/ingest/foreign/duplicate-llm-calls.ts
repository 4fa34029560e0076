/**
 * The same model call recorded twice by two instrumentation layers (e.g.
 * LangChain's LLM span and the openai client's span inside it). Both are kept;
 * the later-starting one is marked `duplicate_of` so tokens and blame are
 * counted once.
 */
import { createHash } from 'node:crypto';
import type { Json } from '../../../../src-shared/trace-format';
import type { ForeignStep } from './foreign-run';

// Layers record the same call a few ms apart; SDK clocks tick in ms.
export const NESTING_TOLERANCE_MS = 5;

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
export const RECENT_CALLS = 64;

function nested(inner: ForeignStep, outer: ForeignStep): boolean {
  if (inner.end === null || outer.end === null) return false;
  return inner.start >= outer.start - NESTING_TOLERANCE_MS && inner.end <= outer.end + NESTING_TOLERANCE_MS;
}

/** Texts longer than this are compared by digest when a step is kept as a summary. */
const DIGEST_ABOVE_CHARS = 64;

/** The call text of a value as compared below; long texts as a digest that no real text equals (it starts with NUL). */
export function callText(value: Json | undefined): string {
  const t = text(value).trim();
  return t.length > DIGEST_ABOVE_CHARS ? `\u0000sha1:${createHash('sha1').update(t).digest('base64')}` : t;
}

function inputText(s: ForeignStep): string {
  return s.summary ? s.summary.inputText : text(s.input).trim();
}
function outputText(s: ForeignStep): string {
  return s.summary ? s.summary.outputText : text(s.output).trim();
}
function hasOutput(s: ForeignStep): boolean {
  return s.summary ? s.summary.hasOutput : !!s.output;
}

function sameCall(a: ForeignStep, b: ForeignStep): boolean {
  const ua = a.usage;
  const ub = b.usage;
  if (ua?.input_tokens !== undefined && ub?.input_tokens !== undefined && ua.output_tokens !== undefined && ub.output_tokens !== undefined) {
    return ua.input_tokens === ub.input_tokens && ua.output_tokens === ub.output_tokens;
  }
  const oa = outputText(a);
  if (oa !== '' && oa === outputText(b)) return true;
  const ia = inputText(a);
  return ia !== '' && ia === inputText(b) && !hasOutput(a) && !hasOutput(b);
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
