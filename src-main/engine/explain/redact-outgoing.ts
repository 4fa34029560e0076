/**
 * Redaction of everything the root-cause agent sends (docs/explain.md §2).
 * The SDKs already redact secrets before a record reaches the disk; this pass
 * repeats the same secret shapes (so a trace written by another tool, or by
 * an SDK with redaction switched off, is covered) and adds the user's own
 * rules from settings (`explain.redact_patterns`, `explain.redact_keys`).
 * The patterns are the SDK's own (src-shared/secret-shapes.ts).
 */
import type { Json } from '../../../src-shared/trace-format';
import { BEARER, DEFAULT_SECRET_PATTERNS, DEFAULT_SENSITIVE_KEY, REDACTED } from '../../../src-shared/secret-shapes';
import { setOwn } from '../../../src-shared/own-property';

const SECRET_SHAPES: RegExp[] = [...DEFAULT_SECRET_PATTERNS, BEARER];

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
        if ((DEFAULT_SENSITIVE_KEY.test(k) || keys.has(k.toLowerCase())) && v !== null && v !== '') {
          replaced++;
          setOwn(out, k, REDACTED);
        } else setOwn(out, text(k), json(v) as Json);
      }
      return out;
    }
    return value;
  };
  return { text, json, count: () => replaced };
}
