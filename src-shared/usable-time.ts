/**
 * Which stored times can be shown as a date. A JS Date holds ±8.64e15 ms
 * (±100,000,000 days) around 1970 (ECMA-262, "Time Values and Time Range");
 * beyond that it is an Invalid Date and toISOString throws. Trace files can
 * say anything (`"ts": 1e300`), so importers keep only times a Date can hold,
 * and every place that prints a stored time checks again: a database written
 * before that check may already hold such a value.
 */
const MAX_TIME_MS = 8.64e15;

/** What a time that cannot be shown reads as, in the terminal and the UI. */
export const INVALID_TIME_TEXT = '(invalid time)';

/** `value` when it is a finite number of ms a Date can hold, else null. */
export function usableTimeMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_TIME_MS ? value : null;
}
