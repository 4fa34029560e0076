import type { Json } from '../../../src-shared/trace-format';

/** Pretty JSON as the copy buttons put it on the clipboard; strings stay as they are. */
export function toCopyText(value: Json | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

export { stringLeaves } from '../../../src-shared/find-steps';
