/**
 * Where things are in the text of a JSON document, for messages about a file
 * that is read whole (a pretty-printed LangChain export, a chat transcript):
 * the line and column of its first syntax error, which JSON.parse does not
 * always give (V8 words some errors with a quote of the text and no
 * position), and the line each message of a transcript starts on.
 *
 * One scanner for both, run only on those paths: it follows RFC 8259 as
 * JSON.parse does, keeps no values, and uses an explicit stack so a document
 * nested thousands deep does not overflow.
 */
import type { ForeignIssue } from './foreign-run';

export interface JsonSyntaxError {
  /** UTF-16 offset into the text. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 units. */
  column: number;
  problem: string;
}

const VALUE = 0;
/** Just after "[": a value or "]". */
const VALUE_OR_CLOSE = 1;
/** Just after "{": a key or "}". */
const KEY_OR_CLOSE = 2;
/** After "," in an object. */
const KEY = 3;
const COLON = 4;
const COMMA_OR_CLOSE = 5;
const DONE = 6;

const MORE_TEXT = 'more text after the end of the JSON document';
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const NUMBER_GOES_ON = /^[0-9.eE+-]$/;

class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** A character that reads as itself: letters, digits, punctuation, symbols. */
const VISIBLE = /^[\p{L}\p{N}\p{P}\p{S}]$/u;

/**
 * What a character is, for a message: a visible one quoted, any other (a
 * control, a space other than ' ', a format or bidi character, a lone
 * surrogate) by its code, so the message never carries it raw.
 */
function describeChar(text: string, i: number): string {
  const c = text.codePointAt(i)!;
  const ch = String.fromCodePoint(c);
  if (VISIBLE.test(ch)) return `'${ch}'`;
  const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  return c < 0x20 || (c >= 0x7f && c < 0xa0) ? `the control character ${code}` : `the character ${code}`;
}

interface ScanHooks {
  /** A value starts at `offset`, `depth` containers deep (0 = the document). */
  value?(offset: number, depth: number, line: number): void;
  /** A key of the top-level object was read (decoded). */
  topKey?(key: string): void;
  /** A key of an object `depth` containers deep was read (decoded): 0 = the document. */
  key?(key: string, depth: number): void;
}

/** Scans the text; returns null when it is one valid JSON document, else the first error. */
function scan(text: string, hooks: ScanHooks = {}): JsonSyntaxError | null {
  const n = text.length;
  const stack: number[] = []; // 0 = array, 1 = object
  let state = VALUE;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const afterValue = () => (stack.length === 0 ? DONE : COMMA_OR_CLOSE);
  const skipString = (): number => {
    // text[i] is the opening quote; returns the offset after the closing one.
    let j = i + 1;
    for (;;) {
      if (j >= n) throw new Stop(j, 'the file ends inside a string');
      const c = text.charCodeAt(j);
      if (c === 0x22) return j + 1;
      if (c === 0x5c) {
        const e = text[j + 1];
        if (e === undefined) throw new Stop(j + 1, 'the file ends inside a string');
        if (e === 'u') {
          HEX4.lastIndex = j + 2;
          if (!HEX4.test(text)) throw new Stop(j, 'a \\u escape needs four hex digits');
          j += 6;
        } else if ('"\\/bfnrt'.includes(e)) j += 2;
        else throw new Stop(j, `a backslash before ${describeChar(text, j + 1)} is not an escape JSON allows`);
        continue;
      }
      if (c < 0x20) throw new Stop(j, `${describeChar(text, j)} inside a string (it must be escaped)`);
      j++;
    }
  };
  try {
    for (;;) {
      // Whitespace; newlines are counted here (a valid string holds none).
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x0a) {
          line++;
          lineStart = i + 1;
        } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
      }
      if (i >= n) {
        if (state === DONE) return null;
        throw new Stop(i, n === 0 || (state === VALUE && stack.length === 0) ? 'the file holds no JSON value' : 'the file ends in the middle of the document (cut off while it was written?)');
      }
      const ch = text[i];
      if (state === VALUE || state === VALUE_OR_CLOSE) {
        if (state === VALUE_OR_CLOSE && ch === ']') {
          stack.pop();
          i++;
          state = afterValue();
          continue;
        }
        hooks.value?.(i, stack.length, line);
        if (ch === '{' || ch === '[') {
          stack.push(ch === '[' ? 0 : 1);
          state = ch === '[' ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
          i++;
          continue;
        }
        if (ch === '"') i = skipString();
        else if (ch === '-' || (ch >= '0' && ch <= '9')) {
          NUMBER.lastIndex = i;
          const m = NUMBER.exec(text);
          // "01", "1.", "1e": what follows the longest valid number still belongs to a number.
          if (!m || NUMBER_GOES_ON.test(text[i + m[0].length] ?? '')) throw new Stop(i, 'a malformed number');
          i += m[0].length;
        } else if (text.startsWith('true', i)) i += 4;
        else if (text.startsWith('false', i)) i += 5;
        else if (text.startsWith('null', i)) i += 4;
        else throw new Stop(i, `expected a value, found ${describeChar(text, i)}`);
        state = afterValue();
      } else if (state === KEY_OR_CLOSE || state === KEY) {
        if (state === KEY_OR_CLOSE && ch === '}') {
          stack.pop();
          i++;
          state = afterValue();
        } else if (ch === '"') {
          const end = skipString();
          if (stack.length === 1 && hooks.topKey) hooks.topKey(JSON.parse(text.slice(i, end)) as string);
          hooks.key?.(JSON.parse(text.slice(i, end)) as string, stack.length - 1);
          i = end;
          state = COLON;
        } else throw new Stop(i, `expected a property name in double quotes${state === KEY_OR_CLOSE ? " or '}'" : ''}, found ${describeChar(text, i)}`);
      } else if (state === COLON) {
        if (ch !== ':') throw new Stop(i, `expected ':' after a property name, found ${describeChar(text, i)}`);
        i++;
        state = VALUE;
      } else if (state === COMMA_OR_CLOSE) {
        const inArray = stack[stack.length - 1] === 0;
        if (ch === ',') {
          i++;
          state = inArray ? VALUE : KEY;
        } else if (ch === (inArray ? ']' : '}')) {
          stack.pop();
          i++;
          state = afterValue();
        } else throw new Stop(i, `expected ',' or '${inArray ? ']' : '}'}', found ${describeChar(text, i)}`);
      } else throw new Stop(i, `${MORE_TEXT}: ${describeChar(text, i)}`);
    }
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    // No newline lies between the line's start and the error: a raw one inside a string is itself the error.
    return { offset: err.offset, line, column: err.offset - lineStart + 1, problem: err.problem };
  }
}

/** The first syntax error of a text JSON.parse rejected, with its line and column; null if the scanner finds none. */
export function firstJsonSyntaxError(text: string): JsonSyntaxError | null {
  return scan(text);
}

/**
 * For a text JSON.parse rejected, in a format that may also be JSON Lines:
 * null when it reads as JSON Lines, else the error of the one document it is,
 * spread over lines (a pretty-printed file). JSON Lines when the first value
 * ends and more text follows it, or when any line holds a non-empty object
 * of its own (an indenting printer never writes one on a line): a
 * line-by-line read then keeps every good line and reports the others.
 */
export function brokenDocumentError(text: string): JsonSyntaxError | null {
  const error = scan(text);
  if (error === null || error.problem.startsWith(MORE_TEXT)) return null;
  for (const raw of text.split('\n')) if (holdsObjectOfItsOwn(raw)) return null;
  return error;
}

/** The problem of a document JSON.parse rejected, at its line: nothing of the file is imported. */
export function documentErrorIssue(error: JsonSyntaxError): ForeignIssue {
  return { line: error.line, level: 'error', message: `not valid JSON at column ${error.column}: ${error.problem}; nothing imported` };
}

/**
 * The line each element of a document's list starts on: the elements of the
 * top-level array (key null), or of the array under `key` of the top-level
 * object. Null for a text that is not one valid JSON document.
 */
export function listElementLines(text: string, key: string | null): number[] | null {
  let lines: number[] = [];
  let lastTopKey: string | null = null;
  let underKeyIsList = false;
  const error = scan(text, {
    topKey: (k) => (lastTopKey = k),
    value: (offset, depth, line) => {
      if (key === null) {
        if (depth === 1) lines.push(line);
      } else if (lastTopKey === key) {
        // A repeated key: JSON.parse keeps the last value, so do its lines.
        if (depth === 1) {
          lines = [];
          underKeyIsList = text[offset] === '[';
        } else if (depth === 2 && underKeyIsList) lines.push(line);
      }
    },
  });
  return error ? null : lines;
}

interface PathNode {
  children: Map<string | number, PathNode>;
  /** The asked paths that end here. */
  ends: number[];
  /** The asked paths that end here or below. */
  below: number[];
  seen: boolean;
}

/**
 * The line on which the value at each path starts (keys and list positions from
 * the document down, e.g. ['resourceSpans', 0, 'scopeSpans', 2]), for a
 * message about a value that is there but is not what the format wants. As
 * JSON.parse keeps the last of repeated keys, so does this: a value met again
 * under a repeated key forgets what was found below its first. Null when the
 * text is not one valid JSON document or has no such value. One scan of the
 * text serves every path.
 */
export function valueLinesAt(text: string, paths: readonly (readonly (string | number)[])[]): (number | null)[] {
  const lines: (number | null)[] = paths.map(() => null);
  const root: PathNode = { children: new Map(), ends: [], below: [], seen: false };
  paths.forEach((path, i) => {
    let node = root;
    node.below.push(i);
    for (const step of path) {
      let next = node.children.get(step);
      if (!next) node.children.set(step, (next = { children: new Map(), ends: [], below: [], seen: false }));
      node = next;
      node.below.push(i);
    }
    node.ends.push(i);
  });
  // Per container depth: whether it is a list, its next element's index, the member key last read; and the
  // asked-path node each open value is at (null once off every asked path).
  const isList: boolean[] = [];
  const next: number[] = [];
  const keys: string[] = [];
  const nodes: (PathNode | null)[] = [];
  const error = scan(text, {
    key: (k, depth) => (keys[depth] = k),
    value: (offset, depth, line) => {
      let node: PathNode | null = root;
      if (depth > 0) {
        const step = isList[depth - 1] ? next[depth - 1]++ : keys[depth - 1];
        node = nodes[depth - 1]?.children.get(step) ?? null;
      }
      nodes[depth] = node;
      if (node) {
        // Met again: a repeated key replaced the first value, and what was found under it.
        if (node.seen) for (const i of node.below) lines[i] = null;
        node.seen = true;
        for (const i of node.ends) lines[i] = line;
      }
      const c = text[offset];
      if (c === '[' || c === '{') {
        isList[depth] = c === '[';
        next[depth] = 0;
      }
    },
  });
  return error ? paths.map(() => null) : lines;
}

/**
 * Whether a line holds a non-empty JSON object of its own, as a line-by-line
 * read parses it (an indenting printer never writes one on a line).
 */
export function holdsObjectOfItsOwn(raw: string): boolean {
  const line = raw.trim();
  // Only what can be an object: a thrown SyntaxError per fragment line would cost seconds on a big file.
  if (line.length < 3 || line[0] !== '{' || line[line.length - 1] !== '}') return false;
  try {
    // The line as the line-by-line read parses it: trim() also drops spaces JSON does not allow (NBSP).
    const v = JSON.parse(raw) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
  } catch {
    return false; // a broken line: not proof either way
  }
}
