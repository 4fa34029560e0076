/** Human-readable rendering helpers for the terminal. Trace text is untrusted: control characters are escaped. */
import { INVALID_TIME_TEXT, usableTimeMs } from '../../src-shared/usable-time';

// C0/C1 controls (ESC, CR, backspace…), bidi overrides and isolates, zero-width and other invisible
// format characters, and line/paragraph separators could rewrite the terminal, hide text or reorder
// what a reader sees. Tab and newline pass (multi-line text); safeLine escapes them too.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
const UNSAFE_IN_LINE = /[\t\n]/g;

export function safeText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** For one-line fields (ids, names, paths): also escapes tab and newline, so a value cannot forge another row. */
export function safeLine(text: string): string {
  return safeText(text).replace(UNSAFE_IN_LINE, (c) => (c === '\n' ? '\\n' : '\\t'));
}

// JSON.stringify escapes C0 controls and lone surrogates but writes DEL, C1 controls, bidi and other
// format characters and line separators raw: `--json` output would carry them to the terminal.
const RAW_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `value` as indented JSON with those characters written as \uXXXX escapes: the same value once parsed. */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => {
    let escaped = '';
    for (let i = 0; i < c.length; i++) escaped += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return escaped;
  });
}

export function oneLine(value: unknown, max = 100): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = safeText(text.replace(/\s+/g, ' '));
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A stored time as UTC; one a Date cannot hold (a store written before imports checked) reads INVALID_TIME_TEXT. */
export function isoTime(ms: number): string {
  if (usableTimeMs(ms) === null) return INVALID_TIME_TEXT;
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function table(rows: string[][], header: string[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n');
}
