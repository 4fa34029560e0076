/**
 * Caps on stored trace fields. A single 50 MB tool payload must not make the
 * runs list or the step panel unusable; the preview keeps what a person reads.
 * A value nested thousands deep (JSON.stringify recurses and overflows the
 * stack near 4,000 levels on Node 20, measured) is cut at MAX_DEPTH instead of
 * failing its whole block.
 */
import type { Json } from '../../../src-shared/trace-format';
import { setOwn } from '../../../src-shared/own-property';

/** Largest JSON text stored for one field (input, output, metadata...). */
const MAX_FIELD_CHARS = 1_000_000;
const PREVIEW_CHARS = 20_000;
/** Deepest nesting stored; deeper values are replaced by a marker. Far above anything an SDK records. */
export const MAX_DEPTH = 256;
const DEPTH_MARKER = `[nested deeper than ${MAX_DEPTH} levels: dropped on import]`;
/** SQLite's JSON functions (json_patch on metadata, json_extract) refuse text nested deeper than this (JSON_MAX_DEPTH). */
const SQLITE_JSON_MAX_DEPTH = 1000;

export interface StoredJson {
  text: string | null;
  truncated: boolean;
  /** How many values were replaced by DEPTH_MARKER (0 when none). */
  depthDropped: number;
}

/** JSON text for a value, or a truncation marker object when it is too large. */
export function storedJson(value: unknown): StoredJson {
  if (value === undefined) return { text: null, truncated: false, depthDropped: 0 };
  let text: string;
  let depthDropped = 0;
  let tooDeep = false;
  try {
    text = JSON.stringify(value);
    // Depth 1,000 needs at least 2,000 characters: shorter texts (nearly all) skip the scan.
    tooDeep = text.length >= 2 * SQLITE_JSON_MAX_DEPTH && jsonDepth(text) > SQLITE_JSON_MAX_DEPTH;
  } catch (err) {
    // Only a stack overflow is expected here (the value came from JSON.parse: no cycles, no BigInt).
    if (!(err instanceof RangeError)) throw err;
    tooDeep = true;
    text = '';
  }
  if (tooDeep) {
    const cut = limitDepth(value, MAX_DEPTH);
    depthDropped = cut.dropped;
    text = JSON.stringify(cut.value);
  }
  if (text.length <= MAX_FIELD_CHARS) return { text, truncated: false, depthDropped };
  return { text: JSON.stringify(truncationMarker(text, text.length)), truncated: true, depthDropped };
}

/** What is stored for a field over the cap: its size and the start of its JSON text (`text` may be just that start). */
export function truncationMarker(text: string, originalChars: number): Json {
  return { $truncated: true, original_chars: originalChars, preview: text.slice(0, PREVIEW_CHARS) };
}

/** Characters of a field's JSON text a truncation marker keeps. */
export const TRUNCATION_PREVIEW_CHARS = PREVIEW_CHARS;

/**
 * A copy of `value` with everything below `max` levels replaced by
 * DEPTH_MARKER. Iterative (an explicit stack): the input is the very value
 * that is too deep to recurse over.
 */
function limitDepth(value: unknown, max: number): { value: unknown; dropped: number } {
  let dropped = 0;
  const copy = (v: unknown): unknown => (Array.isArray(v) ? new Array(v.length) : typeof v === 'object' && v !== null ? {} : v);
  const root = copy(value);
  const stack: { from: unknown; to: unknown; depth: number }[] = [{ from: value, to: root, depth: 1 }];
  while (stack.length) {
    const { from, to, depth } = stack.pop()!;
    if (typeof from !== 'object' || from === null) continue;
    const entries = Array.isArray(from) ? from.map((v, i) => [i, v] as const) : Object.entries(from);
    for (const [k, v] of entries) {
      let out: unknown;
      if (typeof v === 'object' && v !== null) {
        if (depth >= max) {
          out = DEPTH_MARKER;
          dropped += 1;
        } else {
          out = copy(v);
          stack.push({ from: v, to: out, depth: depth + 1 });
        }
      } else out = v;
      setOwn(to as Record<string, unknown>, k as string, out);
    }
  }
  return { value: root, dropped };
}

/** Nesting depth of a JSON text, without parsing it (brackets inside strings do not count). Linear, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i += 1; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth += 1;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth -= 1;
  }
  return max;
}
