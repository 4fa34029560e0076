/**
 * Trace text may carry bidirectional overrides and invisible characters that
 * make what a person reads differ from what the bytes say ("Trojan Source",
 * CVE-2021-42574). We show each as a visible token instead of letting it act.
 */
const CONTROL = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

export interface TextPiece {
  text: string;
  /** Set when this piece stands for one invisible/bidi control character. */
  control: string | null;
}

function codePointLabel(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function revealControls(text: string): TextPiece[] {
  const out: TextPiece[] = [];
  let last = 0;
  CONTROL.lastIndex = 0;
  for (let m = CONTROL.exec(text); m; m = CONTROL.exec(text)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), control: null });
    out.push({ text: codePointLabel(m[0]), control: m[0] });
    last = m.index + 1;
  }
  if (last < text.length) out.push({ text: text.slice(last), control: null });
  return out;
}
