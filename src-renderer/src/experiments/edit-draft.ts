/**
 * The fork editor's text box, checked as the user types: what it holds must
 * become the edit the engine accepts (src-main/engine/experiments/validate-edit.ts),
 * so the same limits are enforced here first, with an error that points at
 * the line and column where the JSON went wrong.
 */
import type { ForkEdit } from '../../../src-shared/replay-plan';
import { MAX_EDIT_BYTES } from '../../../src-shared/experiments';
import type { Json } from '../../../src-shared/trace-format';

/** The engine refuses deeper values (validate-edit.ts). */
const MAX_DEPTH = 200;

/** How the output text box is read: as JSON, or as plain text sent as a JSON string. */
export type OutputFormat = 'json' | 'text';
export type JsonLayout = 'pretty' | 'compact';

export type EditCheck = { ok: true; edit: ForkEdit; bytes: number } | { ok: false; message: string; line?: number; column?: number };

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/**
 * JSON.parse's messages differ between engines; V8 gives "at position N"
 * (and newer versions also "line L column C"). The position is what we need.
 */
function parseErrorOffset(message: string): number | null {
  const pos = /position (\d+)/.exec(message);
  return pos ? Number(pos[1]) : null;
}

function depthOf(value: Json): number {
  let max = 0;
  const stack: [Json, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (d > MAX_DEPTH) return d;
    if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

export function checkJsonText(text: string): { ok: true; value: Json } | { ok: false; message: string; line?: number; column?: number } {
  if (text.trim() === '') return { ok: false, message: 'Empty: type a JSON value (an object, array, string in quotes, number, true, false or null).' };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const offset = parseErrorOffset(raw);
    const lc = /line (\d+) column (\d+)/.exec(raw);
    const where = offset !== null ? lineColumn(text, offset) : lc ? { line: Number(lc[1]), column: Number(lc[2]) } : null;
    // Drop V8's own "(line … column …)" and position tail: the location is given once, our way.
    const reason = raw.replace(/\s*\(line \d+ column \d+\)/, '').replace(/\s*in JSON at position \d+/, '').replace(/^JSON\.parse: /, '');
    return where
      ? { ok: false, message: `Invalid JSON at line ${where.line}, column ${where.column}: ${reason}`, ...where }
      : { ok: false, message: `Invalid JSON: ${reason}` };
  }
}

/** The output edit the text box describes, or why it cannot be sent. */
export function checkOutputEdit(text: string, format: OutputFormat): EditCheck {
  let value: Json;
  if (format === 'text') {
    value = text;
  } else {
    const parsed = checkJsonText(text);
    if (!parsed.ok) return parsed;
    value = parsed.value;
    if (depthOf(value) > MAX_DEPTH) return { ok: false, message: `Nested deeper than ${MAX_DEPTH} levels; the engine refuses it.` };
  }
  const bytes = byteLength(JSON.stringify(value));
  if (bytes > MAX_EDIT_BYTES) return { ok: false, message: `${bytes.toLocaleString('en-US')} bytes of JSON; the limit is ${MAX_EDIT_BYTES.toLocaleString('en-US')}.` };
  return { ok: true, edit: { kind: 'output', output: value }, bytes };
}

export function checkInstructionsEdit(text: string): EditCheck {
  if (text.trim() === '') return { ok: false, message: 'Instructions cannot be empty.' };
  const bytes = byteLength(text);
  if (bytes > MAX_EDIT_BYTES) return { ok: false, message: `${bytes.toLocaleString('en-US')} bytes; the limit is ${MAX_EDIT_BYTES.toLocaleString('en-US')}.` };
  return { ok: true, edit: { kind: 'instructions', instructions: text }, bytes };
}

/** The recorded output as the editor first shows it; a string output starts as plain text. */
export function initialOutputText(output: Json | null, layout: JsonLayout = 'pretty'): { text: string; format: OutputFormat } {
  if (typeof output === 'string') return { text: output, format: 'text' };
  return { text: layoutJson(output ?? null, layout), format: 'json' };
}

/**
 * Compact is byte for byte what the trial receives (key order kept, as the
 * engine keeps it); pretty is the same value indented for reading.
 */
export function layoutJson(value: Json, layout: JsonLayout): string {
  return layout === 'pretty' ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** Same JSON value, whatever the key order (the engine warns about such an edit too). */
export function sameJsonValue(a: Json | null | undefined, b: Json | null | undefined): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

function canonical(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The instructions a recorded llm step ran with, when the SDK recorded them (metadata.instructions). */
export function recordedInstructions(metadata: Record<string, Json> | null | undefined): string | null {
  const v = metadata?.instructions;
  return typeof v === 'string' ? v : null;
}
