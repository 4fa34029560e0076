import type { Json } from '../../../src-shared/trace-format';

/** Pretty JSON as the copy buttons put it on the clipboard; strings stay as they are. */
export function toCopyText(value: Json | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** All string leaves of a value, so a search can count matches without rendering. */
export function stringLeaves(value: Json | undefined, out: string[] = []): string[] {
  const stack: (Json | undefined)[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        stack.push(x);
      }
    }
  }
  return out;
}
