/**
 * Edits come from a person (a file, a text box) or from another run (a
 * transplant); either way they end up in a plan file a pipeline reads. They
 * are checked here: JSON only (no NaN, functions or undefined), at most
 * MAX_EDIT_BYTES, and re-serialised so the stored edit is exactly what the
 * trial receives. Key order is kept, because a pipeline may print or hash the
 * object it is handed.
 */
import type { Json } from '../../../src-shared/trace-format';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import { MAX_EDIT_BYTES } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';

const MAX_DEPTH = 200;

export function validateEdit(edit: unknown): ForkEdit {
  if (!edit || typeof edit !== 'object') throw new EngineError('bad_request', 'the edit must be {kind: "output", output} or {kind: "instructions", instructions}');
  const e = edit as Record<string, unknown>;
  if (e.kind === 'output') {
    if (!('output' in e) || e.output === undefined) throw new EngineError('bad_request', 'an output edit needs the new output (any JSON value)');
    return { kind: 'output', output: canonicalJsonValue(e.output, 'the edited output') };
  }
  if (e.kind === 'instructions') {
    if (typeof e.instructions !== 'string' || e.instructions.trim() === '') throw new EngineError('bad_request', 'an instructions edit needs non-empty instructions text');
    const bytes = Buffer.byteLength(e.instructions, 'utf8');
    if (bytes > MAX_EDIT_BYTES) throw new EngineError('bad_request', `the edited instructions are ${bytes} bytes; the limit is ${MAX_EDIT_BYTES}`);
    return { kind: 'instructions', instructions: e.instructions };
  }
  throw new EngineError('bad_request', `unknown edit kind ${JSON.stringify(e.kind)} (expected "output" or "instructions")`);
}

/** A JSON value checked and round-tripped; throws a bad_request naming `what`. */
export function canonicalJsonValue(value: unknown, what: string): Json {
  checkJson(value, what, 0);
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_EDIT_BYTES) throw new EngineError('bad_request', `${what} is ${bytes} bytes of JSON; the limit is ${MAX_EDIT_BYTES}`);
  return JSON.parse(text) as Json;
}

function checkJson(v: unknown, what: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new EngineError('bad_request', `${what} is nested deeper than ${MAX_DEPTH} levels`);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new EngineError('bad_request', `${what} holds ${v}, which JSON cannot represent`);
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) checkJson(x, what, depth + 1);
    return;
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    for (const x of Object.values(v as object)) checkJson(x, what, depth + 1);
    return;
  }
  throw new EngineError('bad_request', `${what} holds a ${typeof v === 'object' ? 'non-plain object' : typeof v}, which is not JSON`);
}

/** Same JSON value regardless of key order (for "the edit equals the recording"). */
export function sameJson(a: Json | null | undefined, b: Json | null | undefined): boolean {
  return sortedJson(a ?? null) === sortedJson(b ?? null);
}

function sortedJson(v: Json): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
    .join(',')}}`;
}
