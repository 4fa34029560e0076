/**
 * Secrets are removed before a record leaves the process (DESIGN.md §8).
 *
 * Two nets, the same as the Python SDK's: values whose *shape* is a
 * credential (provider key prefixes, bearer tokens, JWTs, PEM private keys),
 * and values stored under a *key name* that holds credentials. The importer
 * redacts again; this pass exists so that a secret never reaches the disk.
 */

export const REDACTED = '[REDACTED]';

// Prefixes published by the providers; lengths are lower bounds so that short
// look-alikes in prose ("sk-learn") are left alone.
export const DEFAULT_SECRET_PATTERNS: RegExp[] = [
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
];

// "Bearer <token>" keeps the word so a reader still sees an auth header was there.
export const BEARER = /\b(bearer)\s+[A-Za-z0-9._~+/-]{16,}=*/gi;

// Key names that hold credentials. "tokens" (plural) is deliberately absent:
// usage fields such as max_tokens / input_tokens are not secrets.
export const DEFAULT_SENSITIVE_KEY =
  /^(?:.*[_\-.])?(?:api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|authorization|proxy[_-]authorization|token|access[_-]?token|refresh[_-]?token|session[_-]?token|auth[_-]?token|id[_-]?token|private[_-]?key|cookie|set[_-]cookie|credentials?)$/i;

export interface RedactionOptions {
  /** Key names whose (non-empty) values are replaced whole. */
  sensitiveKey?: RegExp;
  /** Substrings replaced wherever they occur; must be global (/g) patterns. */
  patterns?: RegExp[];
  /** Added to the defaults rather than replacing them. */
  extraPatterns?: RegExp[];
  extraKeys?: string[];
}

export interface Redactor {
  text(value: string): string;
  isSensitiveKey(key: string): boolean;
}

const NO_REDACTION: Redactor = { text: (v) => v, isSensitiveKey: () => false };

export function makeRedactor(opts: boolean | RedactionOptions | undefined): Redactor {
  if (opts === false) return NO_REDACTION;
  const o = typeof opts === 'object' ? opts : {};
  const patterns = [...(o.patterns ?? DEFAULT_SECRET_PATTERNS), ...(o.extraPatterns ?? [])].map((p) =>
    p.global ? p : new RegExp(p.source, p.flags + 'g'),
  );
  const keyPattern = o.sensitiveKey ?? DEFAULT_SENSITIVE_KEY;
  const extraKeys = new Set((o.extraKeys ?? []).map((k) => k.toLowerCase()));
  return {
    text(value: string): string {
      // Every pattern needs at least 16 characters, so short strings (most of them) skip the scan.
      if (value.length < 16) return value;
      let out = value;
      for (const p of patterns) {
        p.lastIndex = 0;
        if (p.test(out)) {
          p.lastIndex = 0;
          out = out.replace(p, REDACTED);
        }
      }
      BEARER.lastIndex = 0;
      if (BEARER.test(out)) {
        BEARER.lastIndex = 0;
        out = out.replace(BEARER, (_m, word: string) => `${word} ${REDACTED}`);
      }
      return out;
    },
    isSensitiveKey(key: string): boolean {
      return keyPattern.test(key) || (extraKeys.size > 0 && extraKeys.has(key.toLowerCase()));
    },
  };
}
