/**
 * Input fingerprints for replay: a stable hash of canonical JSON (object keys
 * sorted at every level, no whitespace). The SDK stores the fingerprint of
 * each step's recorded input, and in replay mode compares it with the live
 * input's, so a prefix that drifted from the recording is caught.
 */
import * as nodeCrypto from 'node:crypto';
import type { Json } from './trace-format.js';

export function canonicalJson(value: Json | undefined): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  const keys = Object.keys(value).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(value[k])).join(',') + '}';
}

/** "sha256:" + hex digest of the canonical JSON of `value` (an absent input hashes as null). */
export function fingerprintJson(value: Json | undefined): string {
  const text = canonicalJson(value);
  // crypto.hash (Node ≥ 20.12) is the one-shot form, several times cheaper than createHash for short inputs.
  const digest = typeof nodeCrypto.hash === 'function' ? nodeCrypto.hash('sha256', text, 'hex') : nodeCrypto.createHash('sha256').update(text).digest('hex');
  return 'sha256:' + digest;
}
