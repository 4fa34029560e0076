/**
 * The secret shapes and credential key names the SDKs redact before a record
 * reaches the disk, defined once in the TypeScript SDK package (as the trace
 * format is) and used by the engine too: what the root-cause agent sends is
 * redacted with exactly the same rules.
 */
export { BEARER, DEFAULT_SECRET_PATTERNS, DEFAULT_SENSITIVE_KEY, REDACTED } from '../sdk/typescript/src/redaction.js';
