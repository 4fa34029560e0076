/**
 * Trace text is untrusted. Before it goes into a report: bidirectional
 * overrides and isolates (which can make text read differently than it is,
 * CVE-2021-42574 "Trojan Source") and other invisible controls are shown as
 * visible "[U+202E]" markers; then HTML or Markdown specials are escaped.
 */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\uFEFF]/g;

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

export function escapeHtml(text: string): string {
  return showInvisible(text).replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markdown inline text: specials backslash-escaped, HTML made inert, one line. */
export function escapeMarkdown(text: string): string {
  return showInvisible(text)
    .replace(/\r?\n/g, ' ')
    .replace(/[\\`*_{}[\]#!|~>]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;');
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
