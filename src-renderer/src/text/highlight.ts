/**
 * Highlighting by splitting text into segments: the UI renders each segment
 * as a text node (inside a <mark> when matched), so trace content is never
 * parsed as HTML however it is highlighted.
 */
export interface Segment {
  text: string;
  /** Which needle matched: 'evidence' wins over 'search' where they overlap. */
  mark: 'evidence' | 'search' | null;
}

export interface Needle {
  text: string;
  kind: 'evidence' | 'search';
  caseSensitive: boolean;
}

/** Ranges [start, end) where `needle` occurs in `text`, non-overlapping, left to right. */
export function findAll(text: string, needle: string, caseSensitive: boolean): [number, number][] {
  if (!needle) return [];
  const hay = caseSensitive ? text : text.toLowerCase();
  const pin = caseSensitive ? needle : needle.toLowerCase();
  // Lower-casing can change lengths for a few scripts; fall back to exact matching then.
  if (hay.length !== text.length || pin.length !== needle.length) return caseSensitive ? [] : findAll(text, needle, true);
  const out: [number, number][] = [];
  for (let at = hay.indexOf(pin); at >= 0; at = hay.indexOf(pin, at + pin.length)) out.push([at, at + pin.length]);
  return out;
}

export function splitHighlights(text: string, needles: Needle[]): Segment[] {
  if (!text) return [];
  const marks: (Segment['mark'])[] = new Array(text.length).fill(null);
  let any = false;
  for (const kind of ['search', 'evidence'] as const) {
    for (const needle of needles) {
      if (needle.kind !== kind) continue;
      for (const [a, b] of findAll(text, needle.text, needle.caseSensitive)) {
        any = true;
        for (let i = a; i < b; i++) marks[i] = kind;
      }
    }
  }
  if (!any) return [{ text, mark: null }];
  const segments: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marks[i] !== marks[start]) {
      segments.push({ text: text.slice(start, i), mark: marks[start] });
      start = i;
    }
  }
  return segments;
}

export function countMatches(text: string, needle: string): number {
  return findAll(text, needle, false).length;
}
