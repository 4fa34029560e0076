import type { Json } from '../../../src-shared/trace-format';

/**
 * Paths ("" for the root, then "/key" segments) of the leaves that differ
 * between two JSON values, so each side of a comparison can mark them.
 * A path present on one side only counts as changed.
 */
export function changedPaths(a: Json | undefined, b: Json | undefined, path = '', out = new Set<string>()): Set<string> {
  const isObj = (v: Json | undefined): v is { [k: string]: Json } | Json[] => v !== null && typeof v === 'object';
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const child = `${path}/${k}`;
      const va = (a as Record<string, Json>)[k];
      const vb = (b as Record<string, Json>)[k];
      if (va === undefined || vb === undefined) out.add(child);
      else changedPaths(va, vb, child, out);
    }
    return out;
  }
  if (a !== b && JSON.stringify(a) !== JSON.stringify(b)) out.add(path);
  return out;
}
