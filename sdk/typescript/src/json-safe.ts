/**
 * Turn arbitrary JavaScript values into the JSON a trace record may hold.
 *
 * Rules the rest of the SDK relies on:
 * - never throws: whatever a user passes, the record still gets written;
 * - deterministic: the same value gives the same JSON in every process
 *   (Sets keep insertion order, no addresses), because replay fingerprints inputs;
 * - redacted: credential-shaped strings and credential-named keys are removed;
 * - bounded: `capField` cuts a field whose JSON is larger than the limit,
 *   with the same visible marker text as the Python SDK.
 */
import type { Json } from './trace-format.js';
import { REDACTED, type Redactor } from './redaction.js';
import { setOwn } from './own-property.js';

export interface Limits {
  maxStringChars: number;
  maxItems: number;
  maxDepth: number;
}

/** Used for every field: no per-string cap, only guards against pathological nesting. */
const DEFAULT_LIMITS: Limits = { maxStringChars: Infinity, maxItems: Infinity, maxDepth: 64 };
/** Used to re-serialise a field that came out larger than the field cap. */
const TIGHT_LIMITS: Limits = { maxStringChars: 2_000, maxItems: 50, maxDepth: 8 };

export const DEFAULT_MAX_FIELD_BYTES = 1_000_000;

const EMPTY = new Set<object>();

function truncationMarker(removed: number, unit: string): string {
  return `…[truncated ${removed} ${unit}]`;
}

function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit) + truncationMarker(text.length - limit, 'chars');
}

/** A JSON-compatible, redacted copy of `value` (undefined stays undefined). */
export function toJson(value: unknown, redactor: Redactor, limits: Limits = DEFAULT_LIMITS): Json | undefined {
  if (value === undefined) return undefined;
  // Primitives need no cycle tracking; skipping the Set matters on the per-step hot path.
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return convert(value, redactor, limits, 0, EMPTY);
  try {
    return convert(value, redactor, limits, 0, new Set());
  } catch (err) {
    return `[unserialisable ${typeName(value)}: ${(err as Error)?.name ?? 'error'}]`;
  }
}

/**
 * The field as it should be written: unchanged when its JSON fits in
 * `maxBytes`, otherwise re-serialised from the original value with tight
 * limits (strings cut to 2,000 chars, lists to 50 items), and replaced by a
 * marker string if even that is too large.
 */
export function capField(json: Json | undefined, original: unknown, redactor: Redactor, maxBytes: number): Json | undefined {
  if (json === undefined || json === null || typeof json === 'number' || typeof json === 'boolean') return json;
  if (typeof json === 'string') {
    // A UTF-8 character is at most 3 bytes for the BMP (4 for pairs, which count as 2 units): the
    // cheap length test avoids measuring most strings.
    if (json.length * 3 <= maxBytes || Buffer.byteLength(json) <= maxBytes) return json;
    return cutText(json, Math.max(0, Math.floor(maxBytes / 3) - 64));
  }
  const text = JSON.stringify(json);
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return json;
  const tight = toJson(original, redactor, TIGHT_LIMITS);
  const tightText = JSON.stringify(tight ?? null);
  if (Buffer.byteLength(tightText) <= maxBytes) return tight;
  return truncationMarker(text.length, 'chars of JSON');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'Object';
}

function convert(value: unknown, r: Redactor, limits: Limits, depth: number, active: Set<object>): Json {
  switch (typeof value) {
    case 'string':
      return cutText(r.text(value), limits.maxStringChars);
    case 'number':
      // JSON has no NaN/Infinity; a string keeps the information visible.
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      // A string, not a number: a BigInt is usually past 2^53 where a JSON number would lose digits.
      return value.toString();
    case 'undefined':
      return null;
    case 'symbol':
      return value.toString();
    case 'function':
      return `[function ${value.name || 'anonymous'}]`;
  }
  if (value === null) return null;
  const obj = value as object;
  if (depth >= limits.maxDepth) return '[max depth]';
  if (active.has(obj)) return '[circular]';
  active.add(obj);
  try {
    return convertObject(obj, r, limits, depth, active);
  } finally {
    active.delete(obj);
  }
}

function convertObject(obj: object, r: Redactor, limits: Limits, depth: number, active: Set<object>): Json {
  if (Array.isArray(obj)) return convertSequence(obj, r, limits, depth, active);
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
  if (obj instanceof Error) {
    const out: { [k: string]: Json } = { type: obj.name || obj.constructor?.name || 'Error', message: convert(obj.message, r, limits, depth + 1, active) };
    const status = errorStatus(obj);
    if (status !== undefined) out.status = status;
    return out;
  }
  if (obj instanceof Map) {
    const pairs: [string, unknown][] = [];
    for (const [k, v] of obj) pairs.push([typeof k === 'string' ? k : JSON.stringify(convert(k, r, limits, depth + 1, active)), v]);
    return convertMapping(pairs, r, limits, depth, active);
  }
  if (obj instanceof Set) return convertSequence([...obj], r, limits, depth, active);
  if (obj instanceof Uint8Array) return convertBytes(obj, r, limits);
  if (ArrayBuffer.isView(obj)) return convertSequence(Array.from(obj as unknown as ArrayLike<number>), r, limits, depth, active);
  if (obj instanceof ArrayBuffer) return convertBytes(new Uint8Array(obj), r, limits);
  if (obj instanceof RegExp) return obj.toString();
  if (obj instanceof URL) return obj.href;
  if (typeof (obj as { then?: unknown }).then === 'function') return '[promise]';
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const dumped = (toJSON as () => unknown).call(obj);
    if (dumped !== obj) return convert(dumped, r, limits, depth + 1, active);
  }
  return convertMapping(Object.entries(obj), r, limits, depth, active);
}

function convertBytes(bytes: Uint8Array, r: Redactor, limits: Limits): Json {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('utf8');
  // Round-trip check: valid UTF-8 is shown as text, anything else as base64.
  if (Buffer.byteLength(text) === buf.length && !text.includes('\uFFFD')) return cutText(r.text(text), limits.maxStringChars);
  const shownBytes = Number.isFinite(limits.maxStringChars) ? Math.floor(limits.maxStringChars / 2) : buf.length;
  let out = 'base64:' + buf.subarray(0, shownBytes).toString('base64');
  if (buf.length > shownBytes) out += truncationMarker(buf.length - shownBytes, 'bytes');
  return out;
}

function convertMapping(pairs: [string, unknown][], r: Redactor, limits: Limits, depth: number, active: Set<object>): Json {
  const out: { [k: string]: Json } = {};
  let count = 0;
  for (const [key, item] of pairs) {
    if (count >= limits.maxItems) {
      out['…'] = truncationMarker(pairs.length - limits.maxItems, 'keys');
      break;
    }
    if (item === undefined) continue;
    count++;
    if (r.isSensitiveKey(key) && !(item === null || item === '' || typeof item === 'number' || typeof item === 'boolean')) setOwn(out, key, REDACTED);
    else setOwn(out, key, convert(item, r, limits, depth + 1, active));
  }
  return out;
}

function convertSequence(items: unknown[], r: Redactor, limits: Limits, depth: number, active: Set<object>): Json {
  const n = Math.min(items.length, limits.maxItems);
  const out: Json[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = convert(items[i], r, limits, depth + 1, active);
  if (items.length > n) out.push(truncationMarker(items.length - n, 'items'));
  return out;
}

/** HTTP-like status carried by many client errors (fetch wrappers, provider SDKs). */
export function errorStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; statusCode?: unknown };
  if (typeof e.status === 'number' && Number.isFinite(e.status)) return e.status;
  if (typeof e.statusCode === 'number' && Number.isFinite(e.statusCode)) return e.statusCode;
  return undefined;
}
