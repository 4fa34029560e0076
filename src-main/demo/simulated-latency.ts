/**
 * The demo's simulated models and services take time as real ones do, scaled
 * down about fifty-fold. Without it a demo run records in a millisecond or
 * two, its steps share start times, and the run has no timing worth a
 * waterfall.
 */

/** A model: time to the first token, then time per token written. */
const FIRST_TOKEN_MS = 8;
const TOKENS_PER_MS = 4;
const MAX_GENERATION_MS = 60;
/** A search over an index. */
export const SEARCH_MS = 4;
/** A call to a remote service (a rates API). */
export const SERVICE_MS = 3;

function generationMs(outputTokens: number): number {
  return Math.min(MAX_GENERATION_MS, FIRST_TOKEN_MS + Math.ceil(Math.max(0, outputTokens) / TOKENS_PER_MS));
}

/** Resolves to `value` after `ms`. */
export function afterWait<T>(value: T, ms: number): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

/** Resolves to `value` after as long as a model writing `outputTokens` would take (scaled). */
export function afterGeneration<T>(value: T, outputTokens: number): Promise<T> {
  return afterWait(value, generationMs(outputTokens));
}
