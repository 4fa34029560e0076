/**
 * A pull reader over a JSON file that never holds more than one window of it
 * (4 MB, grown only for a single value bigger than that): it steps over
 * values without parsing them, so a caller can cut a huge document into
 * slices (one OTLP span each) and JSON.parse only those. Strings are jumped
 * with Buffer.indexOf; only bytes outside strings are looked at one by one.
 * Measured on a 46 MB OTLP document: the scan costs ~0.1 s CPU where
 * JSON.parse of the whole text costs ~0.8 s and holds ~10× the file in heap.
 *
 * It also notes, for the import's warnings, where lines start and whether the
 * bytes are valid UTF-8.
 */
import fs from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';

const WINDOW_BYTES = 4 * 1024 * 1024;

/** The file ended inside a value: it was cut off (or is still being written). */
export class TruncatedJson extends Error {
  constructor(readonly offset: number) {
    super(`the file ends inside a JSON value (byte ${offset})`);
  }
}

/** A byte where the JSON structure cannot continue. */
export class MalformedJson extends Error {
  constructor(
    readonly offset: number,
    what: string,
  ) {
    super(`${what} at byte ${offset}`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
/** A line walked as a document (stopAtNewline) that ends inside a value. */
const LINE_ENDS_INSIDE = 'the line ends inside a value';

function isSpace(c: number): boolean {
  return c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The letters after a backslash JSON allows, other than u: " \ / b f n r t. */
const SIMPLE_ESCAPES = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];

// What skipCheckedValue expects next.
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY = 2;
const KEY_OR_CLOSE = 3;
const COLON = 4;
const COMMA_OR_CLOSE = 5;

export class JsonByteReader {
  private buf = Buffer.allocUnsafe(WINDOW_BYTES);
  /** File offset of buf[0]. */
  private base: number;
  /** Next byte to read, as an index into buf. */
  pos = 0;
  private end = 0;
  private eof = false;
  /** Index from which bytes must survive a refill (the start of a value being captured), or -1. */
  private keep = -1;
  /** File offsets of the newlines read and not yet passed by lineAt. */
  private newlines: number[] = [];
  private newlinesAt = 0;
  private linesPassed = 0;
  /** Whether any newline was read at all. */
  sawNewline = false;
  private utf8CheckedTo: number;
  invalidUtf8 = false;

  constructor(
    private readonly fd: number,
    start: number,
    /**
     * Whether to note line starts and check UTF-8 (for a reader whose positions are reported). A probe that
     * only looks for the first line's end does not: in a one-line document that end is the end of the file.
     */
    private readonly noting = true,
  ) {
    this.base = start;
    this.utf8CheckedTo = start;
  }

  /** File offset of the next byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Reads more of the file; false at its end. Keeps bytes from `keep` (or `pos`) on. */
  private fill(): boolean {
    if (this.eof) return false;
    const from = Math.min(this.keep >= 0 ? this.keep : this.pos, this.pos, this.noting ? this.utf8CheckedTo - this.base : Infinity);
    if (from > 0) {
      this.buf.copy(this.buf, 0, from, this.end);
      this.end -= from;
      this.pos -= from;
      if (this.keep >= 0) this.keep -= from;
      this.base += from;
    }
    if (this.end === this.buf.length) {
      // One value bigger than the window: grow it (the only way memory grows past the window).
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.end);
      this.buf = bigger;
    }
    const n = fs.readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.base + this.end);
    const readFrom = this.end;
    if (n <= 0) this.eof = true;
    else this.end += n;
    if (this.noting) this.noteRead(readFrom);
    return n > 0;
  }

  private noteRead(from: number): void {
    const window = this.buf.subarray(0, this.end);
    for (let i = window.indexOf(NEWLINE, from); i !== -1; i = window.indexOf(NEWLINE, i + 1)) this.newlines.push(this.base + i);
    if (this.newlines.length) this.sawNewline = true;
    // UTF-8 is checked up to the last ASCII byte read, so a character split by the window is checked whole later.
    const region = window.subarray(this.utf8CheckedTo - this.base);
    if (isAscii(region)) {
      this.utf8CheckedTo = this.base + this.end;
      return;
    }
    let cut = region.length;
    if (!this.eof) while (cut > 0 && region[cut - 1] >= 0x80) cut -= 1;
    if (!isUtf8(region.subarray(0, cut))) this.invalidUtf8 = true;
    this.utf8CheckedTo += cut;
  }

  /** The line (1-based) of a file offset; offsets asked for must not decrease. */
  lineAt(offset: number): number {
    while (this.newlinesAt < this.newlines.length && this.newlines[this.newlinesAt] < offset) this.newlinesAt += 1;
    if (this.newlinesAt > 4096) {
      this.newlines.splice(0, this.newlinesAt);
      this.linesPassed += this.newlinesAt;
      this.newlinesAt = 0;
    }
    return this.linesPassed + this.newlinesAt + 1;
  }

  /** The next byte after whitespace (not consumed), or -1 at the end of the file. */
  peek(): number {
    for (;;) {
      while (this.pos < this.end) {
        const c = this.buf[this.pos];
        if (!isSpace(c) || (c === NEWLINE && this.stopAtNewline)) return c;
        this.pos += 1;
      }
      if (!this.fill()) return -1;
    }
  }

  /**
   * While set, a newline is not whitespace to peek() but a byte of its own: reading one line of JSON Lines
   * as a document (a line too long to hold), the reader then stops where the line ends, as JSON.parse of
   * that line would, instead of reading the next line as more of the same value.
   */
  stopAtNewline = false;

  /**
   * Whether the line at pos ends (at a newline or the end of the file) within `maxBytes`, without moving:
   * whether nextLine() may hold it. Holds at most `maxBytes` of the file to find out.
   */
  lineFits(maxBytes: number): boolean {
    if (this.pos >= this.end && !this.fill()) return true;
    this.keep = this.pos;
    try {
      let from = this.pos;
      for (;;) {
        const nl = this.buf.indexOf(NEWLINE, from);
        if (nl !== -1 && nl < this.end) return nl - this.keep <= maxBytes;
        if (this.end - this.keep > maxBytes) return false;
        const rel = this.end - this.keep;
        if (!this.fill()) return true;
        from = this.keep + rel;
      }
    } finally {
      this.keep = -1;
    }
  }

  /** Consumes `c` after whitespace, or throws. */
  expect(c: number, what: string): void {
    if (this.peek() !== c) throw this.peek() === -1 ? new TruncatedJson(this.offset) : new MalformedJson(this.offset, `expected ${what}`);
    this.pos += 1;
  }

  /** Reads a string (an object key) at pos. */
  readString(): string {
    const c = this.peek();
    if (c !== QUOTE) throw c === -1 ? new TruncatedJson(this.offset) : new MalformedJson(this.offset, 'expected a key');
    this.keep = this.pos;
    let raw: string;
    try {
      this.skipString();
      raw = this.buf.toString('utf8', this.keep + 1, this.pos - 1);
    } finally {
      // Let go also when the string breaks: the reader may go on (the next line).
      this.keep = -1;
    }
    return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  /** pos at an opening quote: moves past the closing one. */
  private skipString(): void {
    let i = this.pos + 1;
    for (;;) {
      const q = this.buf.indexOf(QUOTE, i);
      if (this.stopAtNewline) this.throwAtNewline(i, q === -1 || q >= this.end ? this.end : q);
      if (q === -1 || q >= this.end) {
        const rel = this.end - this.pos;
        if (!this.fill()) throw new TruncatedJson(this.offset);
        i = this.pos + rel;
        continue;
      }
      let k = q - 1;
      while (this.buf[k] === BACKSLASH) k -= 1;
      if ((q - 1 - k) % 2 === 1) {
        i = q + 1;
        continue;
      }
      this.pos = q + 1;
      return;
    }
  }

  /**
   * A line walked as a document (stopAtNewline) cannot go on past its newline, which no string holds raw: the
   * line was cut inside a value, and the next line is not read as more of it.
   */
  private throwAtNewline(from: number, to: number): void {
    // Only [from, to) is searched: a whole-window search for each string made a walked line ~500× slower.
    const at = this.buf.subarray(from, to).indexOf(NEWLINE);
    if (at !== -1) {
      this.pos = from + at;
      throw new MalformedJson(this.offset, LINE_ENDS_INSIDE);
    }
  }

  /** Moves past one value (after whitespace) without parsing it; its syntax is left to whoever parses it. */
  skipValue(): void {
    const c = this.peek();
    if (c === -1) throw new TruncatedJson(this.offset);
    if (c === QUOTE) return this.skipString();
    if (c !== 0x7b && c !== 0x5b) {
      // A number, true, false or null: up to the next delimiter.
      for (;;) {
        if (this.pos >= this.end && !this.fill()) return;
        const d = this.buf[this.pos];
        if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) return;
        this.pos += 1;
      }
    }
    let depth = 0;
    for (;;) {
      if (this.pos >= this.end && !this.fill()) throw new TruncatedJson(this.offset);
      const d = this.buf[this.pos];
      if (d === QUOTE) {
        this.skipString();
        continue;
      }
      if (d === NEWLINE && this.stopAtNewline) throw new MalformedJson(this.offset, LINE_ENDS_INSIDE);
      this.pos += 1;
      if (d === 0x7b || d === 0x5b) depth += 1;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return;
    }
  }

  /**
   * Moves past one value (after whitespace) as skipValue does, checking its syntax as JSON.parse would, without
   * holding it: for members a reader does not use, so that a document the whole parse rejects is not taken as
   * good because the broken part sat where the stream does not look. Throws MalformedJson at the first byte that
   * cannot continue, TruncatedJson at the end of the file. Nesting is kept on a list, not the call stack.
   */
  skipCheckedValue(): void {
    // Per open container: true for an object, false for a list.
    const open: boolean[] = [];
    let state = VALUE;
    for (;;) {
      const c = this.peek();
      if (c === -1) throw new TruncatedJson(this.offset);
      if (state === COLON) {
        if (c !== 0x3a) throw new MalformedJson(this.offset, "expected ':' after a property name");
        this.pos += 1;
        state = VALUE;
        continue;
      }
      if (state === COMMA_OR_CLOSE) {
        const inObject = open[open.length - 1];
        if (c === 0x2c) {
          this.pos += 1;
          state = inObject ? KEY : VALUE;
          continue;
        }
        if (c !== (inObject ? 0x7d : 0x5d)) throw new MalformedJson(this.offset, `expected ',' or '${inObject ? '}' : ']'}'`);
        this.pos += 1;
        open.pop();
        if (open.length === 0) return;
        continue;
      }
      if ((state === KEY_OR_CLOSE && c === 0x7d) || (state === VALUE_OR_CLOSE && c === 0x5d)) {
        this.pos += 1;
        open.pop();
        if (open.length === 0) return;
        state = COMMA_OR_CLOSE;
        continue;
      }
      if (state === KEY || state === KEY_OR_CLOSE) {
        if (c !== QUOTE) throw new MalformedJson(this.offset, 'expected a property name in double quotes');
        this.checkString();
        state = COLON;
        continue;
      }
      // A value.
      if (c === 0x7b || c === 0x5b) {
        this.pos += 1;
        open.push(c === 0x7b);
        state = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
        continue;
      }
      if (c === QUOTE) this.checkString();
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) this.checkNumber();
      else if (c === 0x74) this.checkWord('true');
      else if (c === 0x66) this.checkWord('false');
      else if (c === 0x6e) this.checkWord('null');
      else throw new MalformedJson(this.offset, 'expected a value');
      if (open.length === 0) return;
      state = COMMA_OR_CLOSE;
    }
  }

  /** The byte at pos (reading more of the file when needed), or -1 at its end. */
  private byteHere(): number {
    if (this.pos >= this.end && !this.fill()) return -1;
    return this.buf[this.pos];
  }

  /** pos at an opening quote: moves past the string, refusing what JSON.parse refuses (raw control characters, unknown escapes). */
  private checkString(): void {
    this.pos += 1;
    for (;;) {
      const c = this.byteHere();
      if (c === -1) throw new TruncatedJson(this.offset);
      this.pos += 1;
      if (c === QUOTE) return;
      if (c < 0x20) throw new MalformedJson(this.offset - 1, 'a raw control character in a string');
      if (c !== BACKSLASH) continue;
      const e = this.byteHere();
      if (e === -1) throw new TruncatedJson(this.offset);
      this.pos += 1;
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = this.byteHere();
          if (h === -1) throw new TruncatedJson(this.offset);
          if (!isHexDigit(h)) throw new MalformedJson(this.offset, 'a \\u escape without four hex digits');
          this.pos += 1;
        }
      } else if (!SIMPLE_ESCAPES.includes(e)) throw new MalformedJson(this.offset - 1, 'an escape JSON does not allow');
    }
  }

  /** pos at '-' or a digit: moves past a number of JSON's grammar (-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?). */
  private checkNumber(): void {
    if (this.byteHere() === 0x2d) this.pos += 1;
    const first = this.byteHere();
    if (first === 0x30) this.pos += 1;
    else if (!this.digits()) throw first === -1 ? new TruncatedJson(this.offset) : new MalformedJson(this.offset, 'a number without digits');
    if (this.byteHere() === 0x2e) {
      this.pos += 1;
      if (!this.digits()) throw this.byteHere() === -1 ? new TruncatedJson(this.offset) : new MalformedJson(this.offset, 'no digits after a decimal point');
    }
    const e = this.byteHere();
    if (e === 0x65 || e === 0x45) {
      this.pos += 1;
      const sign = this.byteHere();
      if (sign === 0x2b || sign === 0x2d) this.pos += 1;
      if (!this.digits()) throw this.byteHere() === -1 ? new TruncatedJson(this.offset) : new MalformedJson(this.offset, 'no digits in an exponent');
    }
  }

  /** Moves past a run of digits; false when there was none. */
  private digits(): boolean {
    let any = false;
    for (let c = this.byteHere(); c >= 0x30 && c <= 0x39; c = this.byteHere()) {
      this.pos += 1;
      any = true;
    }
    return any;
  }

  /** pos at the first letter of true, false or null: moves past the word, or throws where it differs. */
  private checkWord(word: string): void {
    for (let k = 0; k < word.length; k++) {
      const c = this.byteHere();
      if (c === -1) throw new TruncatedJson(this.offset);
      if (c !== word.charCodeAt(k)) throw new MalformedJson(this.offset, `expected ${word}`);
      this.pos += 1;
    }
  }

  /** One value (after whitespace) as text, and the file offset where it starts. */
  captureValue(): { text: string; offset: number } {
    this.peek();
    const start = this.pos;
    this.keep = start;
    const offset = this.base + start;
    try {
      this.skipValue();
      return { text: this.buf.toString('utf8', this.keep, this.pos), offset };
    } finally {
      // Let go also when the value breaks: the reader may go on (the next line).
      this.keep = -1;
    }
  }

  /**
   * The next line (without its newline) and the file offset where it starts, or null at the end of the file.
   * A line is held whole: JSON Lines hold one request per line.
   */
  nextLine(): { text: string; offset: number } | null {
    if (this.pos >= this.end && !this.fill()) return null;
    const start = this.pos;
    this.keep = start;
    let from = start;
    for (;;) {
      const nl = this.buf.indexOf(NEWLINE, from);
      if (nl !== -1 && nl < this.end) {
        const text = this.buf.toString('utf8', this.keep, nl);
        const offset = this.base + this.keep;
        this.pos = nl + 1;
        this.keep = -1;
        return { text, offset };
      }
      const rel = this.end - this.keep;
      if (!this.fill()) {
        const text = this.buf.toString('utf8', this.keep, this.end);
        const offset = this.base + this.keep;
        this.pos = this.end;
        this.keep = -1;
        return { text, offset };
      }
      from = this.keep + rel;
    }
  }

  /** Moves past the next newline (or to the end of the file) without holding the line. */
  skipLine(): void {
    for (;;) {
      const nl = this.buf.indexOf(NEWLINE, this.pos);
      if (nl !== -1 && nl < this.end) {
        this.pos = nl + 1;
        return;
      }
      this.pos = this.end;
      if (!this.fill()) return;
    }
  }

  /**
   * Moves past the next newline without holding the line: true when only spaces and tabs (or a carriage return)
   * came before it; null when the file ended first (the line is not finished).
   */
  restOfLineIsSpace(): boolean | null {
    let onlySpace = true;
    for (;;) {
      if (this.pos >= this.end && !this.fill()) return null;
      const c = this.buf[this.pos];
      this.pos += 1;
      if (c === NEWLINE) return onlySpace;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) onlySpace = false;
    }
  }

  /** Reads to the end of the file (so the UTF-8 check covers it), and says whether only whitespace was left. */
  onlySpaceLeft(): boolean {
    return this.peek() === -1;
  }
}

/** Whether the file starts with a UTF-8 byte-order mark (3 bytes, which the whole parser drops with a warning). */
export function startsWithByteOrderMark(fd: number): boolean {
  const head = Buffer.alloc(3);
  const n = fs.readSync(fd, head, 0, 3, 0);
  return n === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
}
