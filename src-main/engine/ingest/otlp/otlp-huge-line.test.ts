/**
 * A JSON Lines line too long to hold as one string (over MAX_HELD_LINE_BYTES, 32 MB) is walked as a document
 * that ends at its newline (hugeLineSpans) instead of failing the whole file. The limit is lowered here to a few
 * hundred bytes, so a short line takes that walk; what it stores is compared with the same file read at the
 * default limit, where every line here is held and parsed whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importedBy, type Imported, type Importer } from '../../../../test/support/imported-rows';
import { isJsonLines } from './otlp-span-stream';
import { importOtlpStreaming, type StreamImportOptions } from './otlp-stream-import';

/** The lowered limit: the one-span lines below fit under it, the many-span lines do not (each test checks which). */
const HELD = 700;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-huge-line-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type Stored = Imported;

let dbCount = 0;
/** What a user could see of the streamed import: rows of runs and steps (but the import clock), and the problems, sorted. */
function stored(file: string, opts: StreamImportOptions): Stored {
  const streamed: Importer = (db, fd, name, size, format, errors) => importOtlpStreaming(db, fd, name, size, format, errors, opts);
  const r = importedBy(file, streamed, path.join(dir, `import-${dbCount++}.db`), 'otlp');
  return { ...r, problems: r.problems.sort() };
}

/** Both ways a file is streamed: read once (its mapped steps kept for the write) and read twice. */
const PASSES = { 'read once': {}, 'read twice': { onePassMaxBytes: 0 } } as const;

/** Imports `lines` with the held-line limit lowered, both ways, expecting what the default limit stores; returns that. */
function expectWalkStoresWhatHeldLinesStore(name: string, lines: string[]): Stored {
  const file = write(name, lines);
  const held = stored(file, {});
  for (const [how, opts] of Object.entries(PASSES)) {
    expect(stored(file, { ...opts, heldLineMaxBytes: HELD }), how).toEqual(held);
    expect(stored(file, opts), `${how} at the default limit`).toEqual(held);
  }
  return held;
}

function write(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

/** Whether the file is read as JSON Lines, with the held-line limit at `limit`. */
function readAsJsonLines(file: string, limit?: number): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    return isJsonLines(fd, 0, limit);
  } finally {
    fs.closeSync(fd);
  }
}

/** Which lines are over the lowered limit (the ones walked), 1-based. */
function hugeLines(lines: string[]): number[] {
  return lines.flatMap((l, i) => (Buffer.byteLength(l) > HELD ? [i + 1] : []));
}

function span(trace: string, id: string, parent?: string, attrs: Record<string, string> = {}): Record<string, unknown> {
  return {
    traceId: trace.padStart(32, '0'),
    spanId: id.padStart(16, '0'),
    ...(parent ? { parentSpanId: parent.padStart(16, '0') } : {}),
    name: `span-${id}`,
    startTimeUnixNano: String(Number.parseInt(id, 16) * 1_000_000),
    endTimeUnixNano: String((Number.parseInt(id, 16) + 5) * 1_000_000),
    attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
    status: { code: 1 },
  };
}

const resourceOf = (service: string) => ({ attributes: [{ key: 'service.name', value: { stringValue: service } }] });

/** One request: its spans under one resource and scope, the resource first or (late) after the spans. */
function request(service: string, spans: unknown[], late = false): string {
  const scopeSpans = [{ scope: { name: 'test-scope', version: '2' }, spans }];
  return JSON.stringify({ resourceSpans: [late ? { scopeSpans, resource: resourceOf(service) } : { resource: resourceOf(service), scopeSpans }] });
}

/** A trace of a root and its children, with what a line's spans can get wrong: a value that is no span, bad ids, an orphan. */
function busyTrace(trace: string): unknown[] {
  return [
    span(trace, '1', undefined, { 'openinference.span.kind': 'AGENT', 'input.value': 'plan a trip' }),
    span(trace, '2', '1', { 'openinference.span.kind': 'LLM', 'output.value': 'x'.repeat(40) }),
    span(trace, '3', '1', { 'openinference.span.kind': 'TOOL' }),
    'not a span',
    { traceId: 'zz', spanId: '12', name: 'bad ids', startTimeUnixNano: '1' },
    span(trace, '4', 'ff'),
  ];
}

const small = (trace: string) => request(`svc-${trace}`, [span(trace, '1')]);

describe('a JSON Lines line too long to hold is walked and stores what a held line stores', () => {
  it('a huge request on line 2 of 3: all three runs import, with the same rows and problems as when every line is held', () => {
    const lines = [small('a'), request('svc-b', busyTrace('b')), small('c')];
    expect(hugeLines(lines)).toEqual([2]);
    const r = expectWalkStoresWhatHeldLinesStore('middle.jsonl', lines);
    expect(r.runs).toHaveLength(3);
    // The line's problems are named as any line's: its number, and its path prefixed with it.
    expect(r.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^error line 2: line 2: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[3\]: not an object/)]));
  });

  it('a huge first line: the file is still JSON Lines, and stores what it stores when every line is held', () => {
    const lines = [request('svc-a', busyTrace('a')), small('b'), small('c')];
    expect(hugeLines(lines)).toEqual([1]);
    // Asked directly too: a wrong "no" would be hidden by the import, which reads a document followed by more text again as JSON Lines.
    expect(readAsJsonLines(write('first.jsonl', lines), HELD)).toBe(true);
    expect(expectWalkStoresWhatHeldLinesStore('first.jsonl', lines).runs).toHaveLength(3);
  });

  it('a huge first line that is not one value by itself is not taken for JSON Lines, as a held one is not', () => {
    const text = request('svc-a', busyTrace('a'));
    // The same request laid out over two lines: its first line is huge and does not end a value.
    const cut = text.lastIndexOf(']}');
    const lines = [text.slice(0, cut), text.slice(cut)];
    expect(hugeLines(lines)).toEqual([1]);
    expect(readAsJsonLines(write('document.json', lines), HELD)).toBe(false);
    expect(expectWalkStoresWhatHeldLinesStore('document.json', lines).runs).toHaveLength(1);
    // Two requests written on the first line without a newline between them: a held line does not parse either.
    const twoOnFirst = write('two-on-first-line.jsonl', [text + small('b'), small('c')]);
    expect([readAsJsonLines(twoOnFirst), readAsJsonLines(twoOnFirst, HELD)]).toEqual([false, false]);
  });

  it('huge requests whose resource comes after their spans keep each its own resource, read once or twice', () => {
    // Two huge lines with a late resource at the same index: each line's late fields are keyed by its line.
    const lines = [small('a'), request('svc-late-b', busyTrace('b'), true), request('svc-late-c', busyTrace('c'), true)];
    expect(hugeLines(lines)).toEqual([2, 3]);
    const r = expectWalkStoresWhatHeldLinesStore('late-resource.jsonl', lines);
    expect(r.runs).toHaveLength(3);
    const pipelines = Object.fromEntries(r.runs.map((run) => [(run as { run_id: string }).run_id.slice(-1), (run as { pipeline: string }).pipeline]));
    expect(pipelines).toEqual({ a: 'svc-a', b: 'svc-late-b', c: 'svc-late-c' });
  });
});

describe('a huge line that is broken is named at its line, and the lines after it still import', () => {
  const whole = request('svc-b', busyTrace('b'));
  /** Imports `line` as line 2 of 3 walked, expecting line 2 named and lines 1 and 3 stored as when every line is held. */
  function expectBrokenLineNamed(name: string, line: string, problem: RegExp): void {
    const lines = [small('a'), line, small('c')];
    expect(hugeLines(lines)).toEqual([2]);
    const file = write(name, lines);
    const held = stored(file, {});
    const runsOfGoodLines = (r: Stored) => ({
      runs: r.runs.filter((run) => (run as { run_id: string }).run_id !== 'b'.padStart(32, '0')),
      steps: r.steps.filter((step) => (step as { run_id: string }).run_id !== 'b'.padStart(32, '0')),
    });
    expect(runsOfGoodLines(held).runs).toHaveLength(2);
    for (const [how, opts] of Object.entries(PASSES)) {
      const walked = stored(file, { ...opts, heldLineMaxBytes: HELD });
      const errors = walked.problems.filter((p) => p.startsWith('error') && !/: not an object|not a valid id/.test(p));
      expect(errors, how).toEqual([expect.stringMatching(problem)]);
      expect(runsOfGoodLines(walked), how).toEqual(runsOfGoodLines(held));
      // What was kept of a line that broke before its end may lack the rest of its run: not shown as complete.
      const lineTwo = walked.runs.find((run) => (run as { run_id: string }).run_id === 'b'.padStart(32, '0')) as { status: string } | undefined;
      if (errors.some((e) => e.includes(': line 2: not valid JSON'))) expect(lineTwo?.status, how).toBe('incomplete');
    }
  }

  it('malformed between two spans: "line 2: not valid JSON", and line 3 imports', () => {
    expectBrokenLineNamed('between-spans.jsonl', whole.replace(',"not a span"', ' oops,"not a span"'), /^error line 2: line 2: not valid JSON \(expected , or \] at byte \d+\); the rest of the line is skipped and the runs of its spans marked incomplete$/);
  });

  it('malformed inside a span: that span is named at line 2 and skipped, and line 3 imports', () => {
    expectBrokenLineNamed('in-a-span.jsonl', whole.replace('"name":"span-3"', '"name":"span-3" oops'), /^error line 2: line 2: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[2\]: not valid JSON at line 2, .*; span skipped$/);
  });

  // A line cut between two spans: the newline is not stepped past as a comma or bracket would be, and line 3 is
  // not taken for the rest of line 2.
  it('cut off between two spans, with no closing brackets: line 3 still imports', () => {
    expectBrokenLineNamed('cut-between-spans.jsonl', whole.slice(0, whole.indexOf(',"not a span"')), /^error line 2: line 2: not valid JSON/);
  });
  // A line cut inside a span: the span's value ends at the newline (a value of a walked line cannot go past it).
  it('cut off inside a span, with no closing brace: line 3 still imports', () => {
    expectBrokenLineNamed('cut-in-a-span.jsonl', whole.slice(0, whole.lastIndexOf('"status"')), /^error line 2: line 2: not valid JSON/);
  });
});
