/**
 * Run ids shown short, never ambiguous: each id cut to the shortest prefix no
 * other known id shares, and never below 8 characters. A fixed 8-character cut
 * made fork trials (`exp-2ce0…`) and UUIDv7 ids minted in the same millisecond
 * read the same. Sorting puts an id's closest rivals beside it, so one pass
 * over neighbours finds each one's length: O(n log n).
 */
const MIN_SHORT_ID = 8;
/** Ids this short are shown whole: cutting them saves less than the ellipsis costs. */
const WHOLE_UP_TO = 16;

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Each id → its shortest unique prefix (at least `min` characters, at most the whole id). */
export function shortestUniquePrefixes(ids: Iterable<string>, min = MIN_SHORT_ID): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, string>();
  for (let i = 0; i < sorted.length; i++) {
    const id = sorted[i];
    const shared = Math.max(i > 0 ? commonPrefix(id, sorted[i - 1]) : 0, i + 1 < sorted.length ? commonPrefix(id, sorted[i + 1]) : 0);
    out.set(id, id.length <= WHOLE_UP_TO ? id : id.slice(0, Math.min(id.length, Math.max(min, shared + 1))));
  }
  return out;
}

/** The short form of one id against a known set; an id the set does not hold is cut to `min`. */
export function shortIdIn(prefixes: Map<string, string>, id: string, min = MIN_SHORT_ID): string {
  return prefixes.get(id) ?? (id.length > WHOLE_UP_TO ? id.slice(0, min) : id);
}
