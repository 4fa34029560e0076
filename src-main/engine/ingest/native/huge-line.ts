/**
 * A native trace line too long to hold as one string (a record no SDK writes:
 * the SDKs cap each field at 1 MB). Read whole, a 300 MB line took 1.4 GB of
 * memory, and one over 512 MB failed the whole import ("Cannot create a string
 * longer than…"), losing every line after it. Here the line is read piecewise
 * from the file: its syntax is checked as JSON.parse would, each member up to
 * MEMBER_MAX_BYTES is parsed, and a bigger member is stored as the truncation
 * marker the store keeps for any field over its cap (store/field-limits.ts),
 * with the start of its JSON text as preview. The record then goes through the
 * same validation as any line (parse-lines.ts). Memory stays at the reader's
 * window plus MEMBER_MAX_BYTES.
 */
import fs from 'node:fs';
import type { Json } from '../../../../src-shared/trace-format';
import { TRUNCATION_PREVIEW_CHARS, truncationMarker } from '../../store/field-limits';
import { JsonByteReader, MalformedJson, TruncatedJson } from '../stream/json-byte-reader';
import { truncationMessage } from '../import-result';
import { parseTraceValue, type LineProblem, type ParsedLine } from './parse-lines';
import { setOwn } from '../../../../src-shared/own-property';

/** Lines longer than this are read by this module rather than decoded into one string. */
export const HUGE_LINE_BYTES = 32 * 1024 * 1024;
/** A member bigger than this (as JSON text) is stored as a truncation marker without being parsed: the store keeps at most 1,000,000 characters of a field anyway. */
const MEMBER_MAX_BYTES = 4 * 1024 * 1024;
/** Longer keys are refused (no format has them; holding one could exhaust memory). */
const KEY_MAX_BYTES = 64 * 1024;

export type HugeLine =
  /** The line was read to its newline (or to the end of a file that will not grow): `end` is the file offset after it. */
  | { kind: 'read'; parsed: ParsedLine; end: number }
  /**
   * The file ends inside the line: it is still being written, or was cut. Nothing is read past its start, so the
   * line is read again when the file grows; `problem` says so when the file will not grow (a one-shot import).
   */
  | { kind: 'unfinished'; problem?: LineProblem };

/** Reads the line that starts at file offset `start` (1-based number `line`); `final`: the file will not grow, so its end ends the line. */
export function readHugeLine(fd: number, start: number, line: number, final: boolean): HugeLine {
  const r = new JsonByteReader(fd, start, false);
  // Said once the line was read to its end, so it gives the line's size.
  const skipped = (what: string, at: number) => `invalid JSON in a line of ${((r.offset - start) / 1e6).toFixed(1)} MB (${what}, ${at} bytes into the line); the line was skipped`;
  let value: Record<string, Json> | null = null;
  const truncated: string[] = [];
  try {
    if (r.peek() !== 0x7b) {
      r.skipCheckedValue();
      value = null;
    } else {
      value = {};
      r.expect(0x7b, '{');
      if (r.peek() === 0x7d) r.pos += 1;
      else {
        for (;;) {
          const key = readKey(fd, r);
          r.expect(0x3a, "':'");
          const from = r.offset;
          r.skipCheckedValue();
          const bytes = r.offset - from;
          if (bytes <= MEMBER_MAX_BYTES) setOwn(value, key, JSON.parse(readText(fd, from, bytes)) as Json);
          else {
            setOwn(value, key, truncationMarker(readText(fd, from, Math.min(bytes, 4 * TRUNCATION_PREVIEW_CHARS)), bytes));
            truncated.push(key);
          }
          const c = r.peek();
          r.pos += 1;
          if (c === 0x7d) break;
          if (c !== 0x2c) throw c === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset - 1, "expected ',' or '}'");
        }
      }
    }
  } catch (err) {
    if (err instanceof TruncatedJson) return unfinished(r, final, line, start);
    if (!(err instanceof MalformedJson) && !(err instanceof SyntaxError)) throw err;
    const what = err instanceof MalformedJson ? err.message.replace(/ at byte \d+$/, '') : 'a key JSON does not allow';
    const at = r.offset - start;
    const ended = r.restOfLineIsSpace();
    if (ended === null && !final) return { kind: 'unfinished' };
    return { kind: 'read', parsed: { kind: 'error', problem: { line, level: 'error', message: skipped(what, at) } }, end: ended === null ? fs.fstatSync(fd).size : r.offset };
  }
  const recordEnd = r.offset - start;
  const rest = r.restOfLineIsSpace();
  if (rest === null && !final) return { kind: 'unfinished' };
  // A final file's last line without a newline is complete when its record is (as a short last line is).
  const end = rest === null ? fs.fstatSync(fd).size : r.offset;
  if (rest === false) return { kind: 'read', parsed: { kind: 'error', problem: { line, level: 'error', message: skipped('more text after the record', recordEnd) } }, end };
  const parsed = parseTraceValue(value, line);
  if (parsed.kind === 'record' && truncated.length) {
    parsed.warnings = [...parsed.warnings, ...truncated.map((f) => ({ line, level: 'warning' as const, message: truncationMessage(f) }))];
  }
  return { kind: 'read', parsed, end };
}

/** The file ended inside the line's JSON: left for later, and said when the file will not grow. */
function unfinished(r: JsonByteReader, final: boolean, line: number, start: number): HugeLine {
  if (!final) return { kind: 'unfinished' };
  const message = `last line is incomplete (${r.offset - start} bytes, cut inside its JSON); it will be read if the file grows`;
  return { kind: 'unfinished', problem: { line, level: 'warning', message } };
}

/** A member's key, checked and decoded without holding more than KEY_MAX_BYTES. */
function readKey(fd: number, r: JsonByteReader): string {
  if (r.peek() !== 0x22) throw r.peek() === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset, 'expected a property name in double quotes');
  const from = r.offset;
  r.skipCheckedValue();
  const bytes = r.offset - from;
  if (bytes > KEY_MAX_BYTES) throw new MalformedJson(from, `a key of ${bytes} bytes`);
  return JSON.parse(readText(fd, from, bytes)) as string;
}

function readText(fd: number, from: number, bytes: number): string {
  const buf = Buffer.allocUnsafe(bytes);
  const n = fs.readSync(fd, buf, 0, bytes, from);
  return buf.toString('utf8', 0, n);
}
