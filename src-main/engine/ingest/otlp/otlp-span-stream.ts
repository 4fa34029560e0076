/**
 * The spans of an OTLP/JSON file, one at a time, without reading the file
 * whole: in a single ExportTraceServiceRequest document the reader steps
 * through `resourceSpans[i].scopeSpans[j].spans[k]` and JSON.parses each span
 * on its own; in JSON Lines (the Collector's file exporter) each line is one
 * request and is parsed whole. Positions, lines and messages are those of the
 * whole-document parser (otlp-import.ts), which the tests compare it with.
 */
import fs from 'node:fs';
import type { Json } from '../../../../src-shared/trace-format';
import { isObject } from '../foreign/chat-messages';
import type { ForeignIssue } from '../foreign/foreign-run';
import { JsonByteReader, MalformedJson, TruncatedJson } from '../stream/json-byte-reader';
import { badLineIssue, collectSpans, type Located } from './otlp-import';
import { firstJsonSyntaxError, holdsObjectOfItsOwn } from '../foreign/json-text-places';
import { attributeMap } from './otlp-values';
import { assignOwn } from '../../../../src-shared/own-property';

/**
 * A document this reader does not follow (a structural key given twice, both
 * `scopeSpans` and `instrumentationLibrarySpans`...): JSON.parse keeps the last
 * of duplicate keys, which a one-pass reader cannot know in advance. The
 * caller imports such a file whole.
 */
export class UnusualOtlpShape extends Error {}

/**
 * Resources and scopes written after the spans they describe (JSON does not
 * order keys). The first pass fills the resource objects in place and notes
 * the scopes; the second pass reads both from here.
 */
export interface LateFields {
  /** By resourceSpans index (a line's prefixed: `line N: i`). */
  resources: Map<string, Record<string, Json>>;
  scopes: Map<string, string | null>;
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
/** Longest line hasObjectLine parses (a longer one is not taken for an object: its string would not fit V8's). */
const MAX_OBJECT_LINE_BYTES = 256 * 1024 * 1024;
/** Longest JSON Lines line held and parsed as one string; a longer one is walked as a document (hugeLineSpans). */
export const MAX_HELD_LINE_BYTES = 32 * 1024 * 1024;

/** A part the reader hands to JSON.parse whole (a resource, a scope), parsed; a broken one is malformed JSON at its start. */
function parseCaptured(r: JsonByteReader): unknown {
  const { text, offset } = r.captureValue();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MalformedJson(offset, 'a malformed value');
  }
}

function scopeName(value: unknown): string | null {
  if (!isObject(value) || typeof value.name !== 'string') return null;
  return `${value.name}${typeof value.version === 'string' && value.version ? '@' + value.version : ''}`;
}

/** Calls `each` for every element of the array at the reader. */
function* elements<T>(r: JsonByteReader, each: (index: number) => Generator<T>): Generator<T> {
  r.expect(OPEN_ARRAY, '[');
  if (r.peek() === CLOSE_ARRAY) {
    r.pos += 1;
    return;
  }
  for (let i = 0; ; i++) {
    yield* each(i);
    // Stepped past only when it is one: a line walked as a document (hugeLineSpans) that ends here keeps its
    // newline, and the next line is not taken for the rest of this one.
    const c = r.peek();
    if (c !== CLOSE_ARRAY && c !== COMMA) throw c === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset, 'expected , or ]');
    r.pos += 1;
    if (c === CLOSE_ARRAY) return;
  }
}

export class OtlpSpanStream {
  readonly reader: JsonByteReader;
  private readonly spans: Generator<Located>;
  /** The document stopped being JSON, or was cut off, before its end (a JSON Lines file with broken first lines reads so). */
  broken = false;
  /** More text followed the document (a JSON Lines file whose first line holds more than one value reads so). */
  moreText = false;
  /** Before each path named: `line N: ` while a line too long to hold is walked (hugeLineSpans), as for any line. */
  private prefix = '';
  /** The line too long to hold being walked (hugeLineSpans), 0 otherwise: its spans may be followed by a break. */
  walkingLine = 0;
  /** Lines walked that broke after some of their spans were read: those spans' runs may have lost the rest. */
  readonly brokenLines = new Set<number>();

  constructor(
    fd: number,
    start: number,
    jsonLines: boolean,
    private readonly issues: ForeignIssue[],
    private readonly late: LateFields,
    /** The first pass fills `late`; the second reads it. */
    private readonly firstPass: boolean,
    /** Longest line held as one string; lower only in tests, so that a line of a few hundred bytes takes the huge-line walk. */
    private readonly heldLineMaxBytes = MAX_HELD_LINE_BYTES,
  ) {
    this.reader = new JsonByteReader(fd, start);
    this.spans = jsonLines ? this.lineSpans() : this.documentSpans();
  }

  /** The next span, or null at the end of the file (or where it was cut off, which is reported). */
  next(): Located | null {
    const n = this.spans.next();
    return n.done ? null : n.value;
  }

  private *lineSpans(): Generator<Located> {
    for (let lineNo = 1; ; lineNo++) {
      if (!this.reader.lineFits(this.heldLineMaxBytes)) {
        yield* this.hugeLineSpans(lineNo);
        continue;
      }
      const line = this.reader.nextLine();
      if (!line) return;
      if (line.text.trim() === '') continue;
      let request: unknown;
      try {
        request = JSON.parse(line.text);
      } catch {
        this.issues.push(badLineIssue(lineNo, line.text));
        continue;
      }
      yield* collectSpans(request, lineNo, null, `line ${lineNo}: `, this.issues);
    }
  }

  private *documentSpans(): Generator<Located> {
    const r = this.reader;
    try {
      if (r.peek() !== OPEN_OBJECT) {
        this.issues.push({ line: 1, level: 'error', message: 'no "resourceSpans" array: not an OTLP ExportTraceServiceRequest' });
        return;
      }
      const sawArray = yield* this.requestSpans();
      if (!sawArray) this.issues.push({ line: 1, level: 'error', message: 'no "resourceSpans" array: not an OTLP ExportTraceServiceRequest' });
      if (!r.onlySpaceLeft()) {
        this.moreText = true;
        this.issues.push({ line: r.lineAt(r.offset), level: 'error', message: `more text after the end of the OTLP document (line ${r.lineAt(r.offset)}); ignored` });
      }
    } catch (err) {
      if (err instanceof TruncatedJson) {
        const line = r.lineAt(err.offset);
        this.issues.push({ line, level: 'error', message: `the file ends inside the OTLP document (line ${line}, byte ${err.offset}): it was cut off; the spans before the cut are imported, and their runs marked incomplete` });
      } else if (err instanceof MalformedJson) {
        const line = r.lineAt(err.offset);
        this.issues.push({ line, level: 'error', message: `not valid JSON at line ${line} (${err.message}); the rest of the file is skipped and the runs marked incomplete` });
      } else if (err instanceof SyntaxError) {
        // A key's escape JSON.parse rejected (the reader decodes keys with it); V8's words would quote the file.
        const line = r.lineAt(r.offset);
        this.issues.push({ line, level: 'error', message: `not valid JSON at line ${line} (a key with an escape JSON does not allow, before byte ${r.offset}); the rest of the file is skipped and the runs marked incomplete` });
      } else throw err;
      this.broken = true;
    }
  }

  /** The spans of the request object at the reader (a document, or a line too long to hold); whether it had a "resourceSpans" array. */
  private *requestSpans(): Generator<Located, boolean> {
    const r = this.reader;
    let sawArray = false;
    let sawKey = false;
    r.expect(OPEN_OBJECT, '{');
    if (r.peek() === CLOSE_OBJECT) {
      r.pos += 1;
      return false;
    }
    for (;;) {
      const key = r.readString();
      r.expect(0x3a, ':');
      if (key === 'resourceSpans') {
        if (sawKey) throw new UnusualOtlpShape('"resourceSpans" appears twice');
        sawKey = true;
        if (r.peek() === OPEN_ARRAY) {
          sawArray = true;
          yield* elements(r, (i) => this.resourceSpans(i));
        } else r.skipCheckedValue();
      } else r.skipCheckedValue();
      if (objectEnds(r)) return sawArray;
    }
  }

  /**
   * A JSON Lines line too long to hold as one string (over MAX_HELD_LINE_BYTES; a 646 MB request failed the
   * whole import): walked as a document that ends with its line, its spans named as any line's are. A line
   * that breaks is reported at its line and the lines after it are still read.
   */
  private *hugeLineSpans(lineNo: number): Generator<Located> {
    const r = this.reader;
    const prefix = `line ${lineNo}: `;
    this.prefix = prefix;
    this.walkingLine = lineNo;
    r.stopAtNewline = true;
    try {
      if (r.peek() !== OPEN_OBJECT) {
        r.skipCheckedValue();
        this.issues.push({ line: lineNo, level: 'error', message: `${prefix}no "resourceSpans" array: not an OTLP ExportTraceServiceRequest` });
      } else if (!(yield* this.requestSpans())) {
        this.issues.push({ line: lineNo, level: 'error', message: `${prefix}no "resourceSpans" array: not an OTLP ExportTraceServiceRequest` });
      }
      const c = r.peek();
      if (c === NEWLINE) r.pos += 1;
      else if (c !== -1) throw new MalformedJson(r.offset, 'more text after the request');
    } catch (err) {
      if (!(err instanceof MalformedJson || err instanceof TruncatedJson || err instanceof SyntaxError)) throw err;
      const what = err instanceof MalformedJson ? err.message : err instanceof TruncatedJson ? 'the file ends inside it' : 'a key with an escape JSON does not allow';
      this.issues.push({ line: lineNo, level: 'error', message: `${prefix}not valid JSON (${what}); the rest of the line is skipped and the runs of its spans marked incomplete` });
      this.brokenLines.add(lineNo);
      if (!(err instanceof TruncatedJson)) r.restOfLineIsSpace();
    } finally {
      r.stopAtNewline = false;
      this.prefix = '';
      this.walkingLine = 0;
    }
  }

  private *resourceSpans(i: number): Generator<Located> {
    const r = this.reader;
    const rsPath = `${this.prefix}resourceSpans[${i}]`;
    const lateResource = `${this.prefix}${i}`;
    if (r.peek() !== OPEN_OBJECT) {
      const line = r.lineAt(r.offset);
      r.skipCheckedValue();
      this.issues.push({ line, level: 'error', message: `${rsPath}: not an object; skipped` });
      return;
    }
    // Filled in place when "resource" comes after the spans (first pass), or read from the first pass.
    const resource: Record<string, Json> = this.late.resources.get(lateResource) ?? {};
    let sawResource = false;
    let sawScopes = false;
    r.expect(OPEN_OBJECT, '{');
    if (r.peek() === CLOSE_OBJECT) {
      r.pos += 1;
      return;
    }
    for (;;) {
      const key = r.readString();
      r.expect(0x3a, ':');
      if (key === 'resource') {
        if (sawResource) throw new UnusualOtlpShape(`${rsPath}: "resource" appears twice`);
        sawResource = true;
        const value = parseCaptured(r);
        const attrs = attributeMap(isObject(value) ? value.attributes : undefined);
        if (!this.late.resources.has(lateResource)) assignOwn(resource, attrs);
        if (sawScopes && this.firstPass) this.late.resources.set(lateResource, resource);
      } else if (key === 'scopeSpans' || key === 'instrumentationLibrarySpans') {
        if (sawScopes) throw new UnusualOtlpShape(`${rsPath}: more than one list of scope spans`);
        sawScopes = true;
        if (r.peek() === OPEN_ARRAY) yield* elements(r, (j) => this.scopeSpans(i, j, resource));
        else r.skipCheckedValue();
      } else r.skipCheckedValue();
      if (objectEnds(r)) return;
    }
  }

  private *scopeSpans(i: number, j: number, resource: Record<string, Json>): Generator<Located> {
    const r = this.reader;
    const ssPath = `${this.prefix}resourceSpans[${i}].scopeSpans[${j}]`;
    // Where the element starts, for a message about it once it is read (the reader's lines only go forward).
    const first = r.peek();
    const startLine = r.lineAt(r.offset);
    if (first !== OPEN_OBJECT) {
      r.skipCheckedValue();
      this.issues.push({ line: startLine, level: 'error', message: `${ssPath}: no "spans" array; skipped` });
      return;
    }
    const lateKey = `${this.prefix}${i}.${j}`;
    let scope: string | null = this.late.scopes.get(lateKey) ?? null;
    let sawScope = false;
    let sawSpans = false;
    let spansArray = false;
    r.expect(OPEN_OBJECT, '{');
    if (r.peek() === CLOSE_OBJECT) r.pos += 1;
    else {
      for (;;) {
        const key = r.readString();
        r.expect(0x3a, ':');
        if (key === 'scope' || key === 'instrumentationLibrary') {
          if (sawScope) throw new UnusualOtlpShape(`${ssPath}: more than one scope`);
          sawScope = true;
          const value = parseCaptured(r);
          if (!this.late.scopes.has(lateKey)) scope = scopeName(value);
          if (sawSpans && this.firstPass) this.late.scopes.set(lateKey, scope);
        } else if (key === 'spans') {
          if (sawSpans) throw new UnusualOtlpShape(`${ssPath}: "spans" appears twice`);
          sawSpans = true;
          if (r.peek() === OPEN_ARRAY) {
            spansArray = true;
            yield* elements(r, (k) => this.span(`${ssPath}.spans[${k}]`, [i, j, k], resource, scope));
          } else r.skipCheckedValue();
        } else r.skipCheckedValue();
        if (objectEnds(r)) break;
      }
    }
    if (!spansArray) this.issues.push({ line: startLine, level: 'error', message: `${ssPath}: no "spans" array; skipped` });
  }

  private *span(path: string, at: [number, number, number], resource: Record<string, Json>, scope: string | null): Generator<Located> {
    const r = this.reader;
    if (r.peek() !== OPEN_OBJECT) {
      const line = r.lineAt(r.offset);
      r.skipCheckedValue();
      this.issues.push({ line, level: 'error', message: `${path}: not an object; skipped` });
      return;
    }
    const { text, offset } = r.captureValue();
    let span: Record<string, unknown>;
    try {
      span = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Named in the scanner's words at its place: V8's would quote the file.
      const error = firstJsonSyntaxError(text);
      const line = r.lineAt(offset) + (error ? error.line - 1 : 0);
      this.issues.push({ line, level: 'error', message: `${path}: not valid JSON${error ? ` at line ${line}, column ${error.column}: ${error.problem}` : ''}; span skipped` });
      return;
    }
    // The line the span starts on, as the whole-document parser names it (1 throughout a one-line document).
    const line = r.lineAt(offset);
    yield { span, at, path, line, resource, scope };
  }
}

/**
 * Whether a file is JSON Lines of requests rather than one document, as the
 * whole-document parser decides: its first non-blank line is a JSON value by
 * itself and more text follows. A first line that is not (a document spread
 * over lines, or a JSON Lines file whose first line is broken) is read as a
 * document; the import reads it again as JSON Lines if more text follows that
 * document, or it breaks and a line holds an object of its own
 * (hasObjectLine). The first line is
 * not read whole when nothing follows it: a one-line document may be the
 * whole file.
 */
export function isJsonLines(fd: number, start: number, heldLineMaxBytes = MAX_HELD_LINE_BYTES): boolean {
  const r = new JsonByteReader(fd, start, false);
  if (r.peek() === -1) return false;
  const first = r.offset;
  r.skipLine();
  if (r.peek() === -1) return false;
  const head = new JsonByteReader(fd, first, false);
  try {
    if (head.lineFits(heldLineMaxBytes)) JSON.parse(head.nextLine()?.text ?? '');
    else {
      // Too long to hold: the same question answered without the string.
      head.stopAtNewline = true;
      head.skipCheckedValue();
      return head.peek() === NEWLINE;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any line of the file holds a non-empty JSON object of its own (brokenDocumentError's test for JSON
 * Lines). Only a line whose first and last non-space bytes are braces is read as text: a cut one-line document
 * of hundreds of MB is not.
 */
export function hasObjectLine(fd: number, start: number): boolean {
  const buf = Buffer.allocUnsafe(1 << 20);
  // The first line is not one: the file was read as a document because it does not parse alone (isJsonLines).
  let lineStart = -1;
  let first = -1;
  let last = -1;
  const lineHolds = (end: number): boolean => {
    const holds =
      lineStart >= 0 && first === OPEN_OBJECT && last === CLOSE_OBJECT && end - lineStart <= MAX_OBJECT_LINE_BYTES && holdsObjectOfItsOwn(readText(fd, lineStart, end));
    first = last = -1;
    return holds;
  };
  for (let pos = start; ; ) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n <= 0) return lineHolds(pos);
    for (let i = 0; i < n; i++) {
      const c = buf[i];
      if (c === NEWLINE) {
        if (lineHolds(pos + i)) return true;
        lineStart = pos + i + 1;
      } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) {
        if (first === -1) first = c;
        last = c;
      }
    }
    pos += n;
  }
}

function readText(fd: number, from: number, to: number): string {
  const bytes = Buffer.allocUnsafe(to - from);
  fs.readSync(fd, bytes, 0, bytes.length, from);
  return bytes.toString('utf8');
}

/** Steps past what follows an object member: true at the object's closing brace, past the comma otherwise. */
function objectEnds(r: JsonByteReader): boolean {
  // As in elements(): a byte that is neither is not stepped past (a walked line's newline stays for the next line).
  const c = r.peek();
  if (c !== CLOSE_OBJECT && c !== COMMA) throw c === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset, 'expected , or }');
  r.pos += 1;
  return c === CLOSE_OBJECT;
}
