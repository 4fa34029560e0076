/**
 * OTLP/JSON scalars as real exporters write them: ids in lowercase hex (the
 * OTLP/JSON rule) or base64 (protobuf's generic JSON mapping, used by some
 * clients); 64-bit integers as JSON numbers or strings; enums as numbers or
 * their names.
 */
import type { Json } from '../../../../src-shared/trace-format';
import { usableTimeMs } from '../../../../src-shared/usable-time';
import { isObject } from '../foreign/chat-messages';
import { setOwn } from '../../../../src-shared/own-property';

interface KeyValue {
  key: string;
  value?: unknown;
}

/** An int64 written as a number or a decimal string; strings beyond 2^53 stay strings. */
export function int64(value: unknown): number | string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  return null;
}

function anyValue(value: unknown, depth = 0): Json {
  if (!isObject(value) || depth > 32) return null;
  if ('stringValue' in value) return typeof value.stringValue === 'string' ? value.stringValue : String(value.stringValue ?? '');
  if ('boolValue' in value) return value.boolValue === true || value.boolValue === 'true';
  if ('intValue' in value) return int64(value.intValue);
  if ('doubleValue' in value) {
    const d = value.doubleValue;
    // proto3 JSON writes NaN and infinities as strings.
    return typeof d === 'number' ? d : typeof d === 'string' ? (Number.isFinite(Number(d)) ? Number(d) : d) : null;
  }
  if ('arrayValue' in value) {
    const values = isObject(value.arrayValue) && Array.isArray(value.arrayValue.values) ? value.arrayValue.values : [];
    return values.map((v) => anyValue(v, depth + 1));
  }
  if ('kvlistValue' in value) {
    const values = isObject(value.kvlistValue) && Array.isArray(value.kvlistValue.values) ? value.kvlistValue.values : [];
    return attributeMap(values as unknown as KeyValue[], depth + 1);
  }
  if ('bytesValue' in value) return typeof value.bytesValue === 'string' ? value.bytesValue : null;
  return null;
}

export function attributeMap(list: unknown, depth = 0): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (isObject(kv) && typeof kv.key === 'string') setOwn(out, kv.key, anyValue(kv.value, depth));
  }
  return out;
}

/**
 * A trace or span id as lowercase hex. Hex of the right length is taken as
 * is; otherwise base64 that decodes to the right number of bytes. Returns
 * null for an empty or undecodable id.
 */
export function decodeId(value: unknown, bytes: 8 | 16): string | null {
  if (typeof value !== 'string' || value === '') return null;
  if (value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) return /^0+$/.test(value) ? null : value.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const buf = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (buf.length === bytes) {
      const hex = buf.toString('hex');
      return /^0+$/.test(hex) ? null : hex;
    }
  }
  return null;
}

/**
 * Unix nanoseconds (number or decimal string) → epoch ms with microsecond precision; null when absent,
 * or when a Date cannot hold it (a start so read is a missing start: the span is skipped and named).
 */
export function nanosToMs(value: unknown): number | null {
  if (typeof value === 'string' && /^\d+$/.test(value)) return usableTimeMs(Number(BigInt(value) / 1000n) / 1000);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return usableTimeMs(Math.round(value / 1000) / 1000);
  return null;
}

export function msToNanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

/** Status code 2 / "STATUS_CODE_ERROR" means the span failed. */
export function statusIsError(status: unknown): boolean {
  if (!isObject(status)) return false;
  return status.code === 2 || status.code === '2' || status.code === 'STATUS_CODE_ERROR';
}

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

export function spanKindName(kind: unknown): string | null {
  if (typeof kind === 'number') return SPAN_KINDS[kind] ?? String(kind);
  if (typeof kind === 'string') return kind.replace(/^SPAN_KIND_/, '');
  return null;
}
