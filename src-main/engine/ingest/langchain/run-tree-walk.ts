/**
 * The runs of a LangChain run-tree file, one object at a time, without
 * reading the file whole: the reader steps through the top array (or
 * `{"runs": [...]}`, or one root run) and down every `child_runs` array,
 * keeping a stack of the objects it is inside. Each run object is handed out
 * when it closes, with the members it was asked to capture (as text, never
 * its child_runs), so its children come before it. Objects are numbered in
 * the order they open (depth first, the whole-document parser's order).
 *
 * Members come in any order: LangChain JS writes `run_type`, `outputs` and
 * `end_time` after `child_runs`, so nothing about a run is known until it
 * closes. Duplicate `child_runs` keys (JSON.parse keeps the last) and tops
 * that are not an array or object are left to the whole-document parser.
 */
import { JsonByteReader, MalformedJson, TruncatedJson } from '../stream/json-byte-reader';
import type { TopShape } from './run-tree-order';

/** A document this walk does not follow; the caller imports the file whole (the whole parser reports what it finds). */
export class UnusualRunTreeShape extends Error {}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE = 0x22;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

/** What to keep of an object as it is read: every member but child_runs, only the named ones, or none. */
export type Capture = 'all' | ReadonlySet<string> | null;

/** A closed object at a run's place (a top element or a child_runs element). */
export interface WalkedRun {
  /** Opening order, from 0. */
  n: number;
  /** The object whose child_runs holds it, or -1 at the top. */
  parent: number;
  /** Its index in that array. */
  index: number;
  depth: number;
  /** Not an object (the whole parser reports it as not a run). */
  notObject: boolean;
  /** The captured members, as `"key":value` JSON text each, in file order. */
  members: string[];
  /** Line on which the value starts (its `{`, for an object). */
  line: number;
  /** Line of its last `"id"` key whose value is a string, and whether that value is written with escapes. */
  idLine: number;
  idEscaped: boolean;
  /** Bytes of the object without its child_runs. */
  ownBytes: number;
  /** Where the values of captured members named in the walk's `located` are in the file (bytes), in file order. */
  places?: { key: string; start: number; end: number }[];
}

interface ObjectFrame {
  kind: 'object';
  run: WalkedRun;
  capture: Capture;
  state: 'start' | 'key' | 'after';
  sawChildRuns: boolean;
  opened: number;
  childBytes: number;
  /** The top `{"runs": [...]}` wrapper, not a run. */
  wrapper: boolean;
}

interface ArrayFrame {
  kind: 'array';
  /** The object holding it, or -1 for the top array. */
  owner: number;
  depth: number;
  state: 'start' | 'element' | 'after';
  next: number;
  opened: number;
}

/**
 * How the file lists its runs, found by stepping over the top object's members once: an object with a
 * `runs` array is a wrapper (JSON.parse keeps the last `runs`, so a second one is left to it).
 */
export function topShape(fd: number, start: number): TopShape {
  const r = new JsonByteReader(fd, start);
  const c = r.peek();
  if (c === OPEN_ARRAY) return 'array';
  if (c !== OPEN_OBJECT) throw new UnusualRunTreeShape('the document is not an array or object');
  r.pos += 1;
  let runs = 0;
  let runsArray = false;
  if (r.peek() === CLOSE_OBJECT) return 'single';
  try {
    for (;;) {
      r.peek();
      const keyAt = r.offset;
      const key = r.readString();
      if (CONTROL_CHARACTER.test(key)) throw new MalformedJson(keyAt, 'a control character in a key');
      r.expect(COLON, ':');
      if (key === 'runs') {
        runs += 1;
        runsArray = r.peek() === OPEN_ARRAY;
      }
      r.skipValue();
      const d = r.peek();
      r.pos += 1;
      if (d === CLOSE_OBJECT) break;
      if (d !== COMMA) throw d === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset - 1, 'expected , or }');
    }
  } catch (err) {
    // Cut off (an exporter stopped mid-write): the walk stops at the cut too, keeping the runs before it.
    if (!(err instanceof TruncatedJson)) throw err;
  }
  if (runs > 1) throw new UnusualRunTreeShape('"runs" appears twice');
  return runsArray ? 'runs' : 'single';
}

export class RunTreeWalk {
  readonly reader: JsonByteReader;
  private readonly stack: (ObjectFrame | ArrayFrame)[] = [];
  private opened = 0;
  private started = false;
  /** Members of the top wrapper other than `runs`, for the caller to check (JSON.parse would reject a broken one). */
  readonly wrapperMembers: string[] = [];

  constructor(
    fd: number,
    start: number,
    private readonly shape: TopShape,
    /** What to capture of the object opened n-th. */
    private readonly captureOf: (n: number) => Capture,
    /** Capture the wrapper's other members (the first pass checks them). */
    private readonly checkWrapper = false,
    /** Captured members whose values' places to note (a caller that reads them again later, from the file). */
    private readonly located?: ReadonlySet<string>,
  ) {
    this.reader = new JsonByteReader(fd, start);
  }

  /** The next closed run-place object, or null at the end of the document. Throws TruncatedJson, MalformedJson or UnusualRunTreeShape. */
  next(): WalkedRun | null {
    const r = this.reader;
    if (!this.started) {
      this.started = true;
      if (this.shape === 'array') this.stack.push(this.arrayFrame(-1, 0));
      else if (this.shape === 'runs') this.stack.push(this.objectFrame(-1, 0, 0, this.checkWrapper ? 'all' : null, true));
      else this.stack.push(this.objectFrame(-1, 0, 0, this.captureOf(0), false));
    }
    for (;;) {
      const frame = this.stack[this.stack.length - 1];
      if (!frame) {
        if (!r.onlySpaceLeft()) throw new MalformedJson(r.offset, 'more text after the document');
        return null;
      }
      if (frame.kind === 'array') {
        const done = this.stepArray(frame);
        if (done) return done;
      } else {
        const done = this.stepObject(frame);
        if (done) return done;
      }
    }
  }

  /** The runs still open (outermost first), with what was captured of them: where the file is cut, they never close. */
  openRuns(): WalkedRun[] {
    return this.stack.filter((f): f is ObjectFrame => f.kind === 'object' && !f.wrapper).map((f) => f.run);
  }

  private arrayFrame(owner: number, depth: number): ArrayFrame {
    this.reader.expect(OPEN_ARRAY, '[');
    return { kind: 'array', owner, depth, state: 'start', next: 0, opened: this.reader.offset - 1 };
  }

  private objectFrame(parent: number, index: number, depth: number, capture: Capture, wrapper: boolean): ObjectFrame {
    const n = wrapper ? -1 : this.opened++;
    const opened = this.reader.offset;
    this.reader.expect(OPEN_OBJECT, '{');
    const line = wrapper ? 1 : this.reader.lineAt(this.reader.offset - 1);
    const run: WalkedRun = { n, parent, index, depth, notObject: false, members: [], line, idLine: 1, idEscaped: false, ownBytes: 0 };
    return { kind: 'object', run, capture, state: 'start', sawChildRuns: false, opened, childBytes: 0, wrapper };
  }

  /** One element (or the end) of an array of runs; a closed non-object element is returned. */
  private stepArray(frame: ArrayFrame): WalkedRun | null {
    const r = this.reader;
    if (frame.state === 'start') {
      frame.state = 'element';
      if (r.peek() === CLOSE_ARRAY) {
        r.pos += 1;
        return this.closeArray();
      }
    } else if (frame.state === 'after') {
      const c = r.peek();
      r.pos += 1;
      if (c === CLOSE_ARRAY) return this.closeArray();
      if (c !== COMMA) throw c === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset - 1, 'expected , or ]');
      frame.state = 'element';
    }
    frame.state = 'after';
    const index = frame.next++;
    if (r.peek() === OPEN_OBJECT) {
      const n = this.opened;
      this.stack.push(this.objectFrame(frame.owner, index, frame.depth, this.captureOf(n), false));
      return null;
    }
    const n = this.opened++;
    const capture = this.captureOf(n);
    const line = r.lineAt(r.offset);
    const members = capture !== null ? [r.captureValue().text] : (r.skipValue(), []);
    return { n, parent: frame.owner, index, depth: frame.depth, notObject: true, members, line, idLine: 1, idEscaped: false, ownBytes: 0 };
  }

  private closeArray(): null {
    const frame = this.stack.pop() as ArrayFrame;
    const owner = this.stack[this.stack.length - 1];
    if (owner?.kind === 'object') owner.childBytes += this.reader.offset - frame.opened;
    return null;
  }

  /** One member (or the end) of an object at a run's place. */
  private stepObject(frame: ObjectFrame): WalkedRun | null {
    const r = this.reader;
    if (frame.state === 'start') {
      frame.state = 'key';
      if (r.peek() === CLOSE_OBJECT) {
        r.pos += 1;
        return this.closeObject(frame);
      }
    } else if (frame.state === 'after') {
      const c = r.peek();
      r.pos += 1;
      if (c === CLOSE_OBJECT) return this.closeObject(frame);
      if (c !== COMMA) throw c === -1 ? new TruncatedJson(r.offset) : new MalformedJson(r.offset - 1, 'expected , or }');
      frame.state = 'key';
    }
    frame.state = 'after';
    r.peek();
    const keyAt = r.offset;
    const key = r.readString();
    // A captured key is written again with JSON.stringify, which would escape what JSON.parse rejects.
    if (CONTROL_CHARACTER.test(key)) throw new MalformedJson(keyAt, 'a control character in a key');
    r.expect(COLON, ':');
    const runsHere = frame.wrapper ? key === 'runs' : key === 'child_runs';
    if (runsHere) {
      if (frame.sawChildRuns) throw new UnusualRunTreeShape(`"${key}" appears twice in one object`);
      frame.sawChildRuns = true;
      if (r.peek() === OPEN_ARRAY) {
        this.stack.push(this.arrayFrame(frame.run.n, frame.wrapper ? 0 : frame.run.depth + 1));
        return null;
      }
      // Not an array: no children; JSON.parse still has to accept it.
      if (frame.capture !== null) frame.run.members.push(`${JSON.stringify(key)}:${r.captureValue().text}`);
      else r.skipValue();
      return null;
    }
    if (key === 'id' && !frame.wrapper && r.peek() === QUOTE) {
      frame.run.idLine = r.lineAt(keyAt);
      const { text } = r.captureValue();
      frame.run.idEscaped = text.includes('\\');
      if (frame.capture === 'all' || frame.capture?.has(key)) frame.run.members.push(`${JSON.stringify(key)}:${text}`);
      return null;
    }
    if (frame.capture === 'all' || (frame.capture !== null && frame.capture.has(key))) {
      const { text, offset } = r.captureValue();
      frame.run.members.push(`${JSON.stringify(key)}:${text}`);
      if (this.located?.has(key)) (frame.run.places ??= []).push({ key, start: offset, end: r.offset });
    } else r.skipValue();
    return null;
  }

  private closeObject(frame: ObjectFrame): WalkedRun | null {
    this.stack.pop();
    if (frame.wrapper) {
      for (const m of frame.run.members) this.wrapperMembers.push(m);
      return null;
    }
    frame.run.ownBytes = this.reader.offset - frame.opened - frame.childBytes;
    return frame.run;
  }
}

/** The captured members of an object as the JSON text of an object (or the value, for what is not an object). */
export function membersText(run: WalkedRun): string {
  return run.notObject ? run.members[0] : `{${run.members.join(',')}}`;
}

/** The captured members of an object, parsed as JSON.parse parses the object (the last of duplicate keys wins, `__proto__` stays a key). */
export function parseMembers(run: WalkedRun): unknown {
  return JSON.parse(membersText(run)) as unknown;
}
