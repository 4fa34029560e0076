/**
 * Redaction of everything the root-cause agent sends (docs/explain.md §2).
 * The SDKs already redact secrets before a record reaches the disk; this pass
 * repeats the same secret shapes (so a trace written by another tool, or by
 * an SDK with redaction switched off, is covered) and adds the user's own
 * rules from settings (`explain.redact_patterns`, `explain.redact_keys`).
 * The patterns mirror sdk/typescript/src/redaction.ts: the engine does not
 * import the SDK package.
 */
import type { Json } from '../../../src-shared/trace-format';

const REDACTED = '[REDACTED]';

const SECRET_SHAPES: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{20,}/g,
  /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(bearer)\s+[A-Za-z0-9._~+/-]{16,}=*/gi,
];

const SENSITIVE_KEY =
  /^(?:.*[_\-.])?(?:api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|authorization|proxy[_-]authorization|token|access[_-]?token|refresh[_-]?token|session[_-]?token|auth[_-]?token|id[_-]?token|private[_-]?key|cookie|set[_-]cookie|credentials?)$/i;

export interface OutgoingRedactor {
  text(value: string): string;
  json(value: Json | null): Json | null;
  /** How many values were replaced so far (shown before the call). */
  count(): number;
}

export function outgoingRedactor(userPatterns: string[], userKeys: string[]): OutgoingRedactor {
  const patterns = [...SECRET_SHAPES, ...userPatterns.map((p) => new RegExp(p, 'giu'))];
  const keys = new Set(userKeys.map((k) => k.toLowerCase()));
  let replaced = 0;
  const text = (value: string): string => {
    let out = value;
    for (const p of patterns) {
      p.lastIndex = 0;
      out = out.replace(p, (_m, word?: unknown) => {
        replaced++;
        // "Bearer <token>" keeps the word so the reader still sees an auth header was there.
        return typeof word === 'string' && /^bearer$/i.test(word) ? `${word} ${REDACTED}` : REDACTED;
      });
    }
    return out;
  };
  const json = (value: Json | null): Json | null => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map((v) => json(v) as Json);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(value)) {
        if ((SENSITIVE_KEY.test(k) || keys.has(k.toLowerCase())) && v !== null && v !== '') {
          replaced++;
          out[k] = REDACTED;
        } else out[text(k)] = json(v) as Json;
      }
      return out;
    }
    return value;
  };
  return { text, json, count: () => replaced };
}
