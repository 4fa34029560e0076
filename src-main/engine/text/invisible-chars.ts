/**
 * Import problems quote what they found (V8's JSON errors quote the file, orphan messages name steps), and
 * that text is shown by the CLI, `--json` output and the UI. A character that acts instead of showing
 * (ESC starting a terminal sequence, U+202E reordering what follows, a zero-width one hiding text) is
 * named by its code before a message is stored, as json-text-places' describeChar names the ones it meets.
 */

// Every control (C0, DEL, C1: tab and newline too, a message is one line), format character (bidi
// embeddings, overrides, isolates and marks, zero-width ones, soft hyphen, tags), line and paragraph
// separator, and lone surrogate half.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `text` with each such character written as `[U+XXXX]`; any other text is kept as it is. */
export function nameInvisibleChars(text: string): string {
  INVISIBLE.lastIndex = 0;
  if (!INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}
