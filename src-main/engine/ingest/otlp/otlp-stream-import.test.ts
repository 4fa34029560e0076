/**
 * The streaming OTLP import stores exactly what the whole-document import
 * stores (same runs, steps, fields and problems) on every OTLP fixture and on
 * documents shaped to trip a one-pass reader; and it does what the whole
 * import could not: keeps the spans before a cut, stops when cancelled
 * without losing committed blocks, reports progress.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportError } from '../../../../src-shared/model';
import { openDatabase, type Db } from '../../store/open-database';
import { detectFileFormat } from '../foreign-formats';
import { importFile } from '../import-file';
import { importForeign, importWhole } from '../import-foreign';
import { UnusualOtlpShape } from './otlp-span-stream';
import { exportOtlp } from '../foreign/index';
import { foldRecords } from '../native/fold-records';
import { syntheticRunRecords } from '../../../../test/support/synthetic-trace';
import { importOtlpStreaming, importOtlpStreamingAsync } from './otlp-stream-import';
import { expectCancelledImportFinishedLater } from '../../../../test/support/streamed-import';
import { importedBy, type Imported, type Importer } from '../../../../test/support/imported-rows';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-stream-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Everything a user could see of an import: rows of runs and steps (but the import clock), and the problems, as sorted text. */
function stored(file: string, importer: Importer, dbName: string): Imported {
  const r = importedBy(file, importer, path.join(dir, dbName), 'otlp');
  return { ...r, problems: r.problems.sort() };
}

/** The streamed import forced to read the file twice, as files over the one-pass budget are. */
const twoPasses: Importer = (db, fd, file, size, format, errors) => importOtlpStreaming(db, fd, file, size, format, errors, { onePassMaxBytes: 0 });

function expectSameAsWhole(file: string): Imported {
  const whole = stored(file, importWhole, 'whole.db');
  // Called directly, not through importForeign: a document the reader gave up on would fail here, not fall back.
  // Both ways a file is streamed: read once (its mapped steps kept for the write) and read twice.
  for (const [importer, dbName] of [[importOtlpStreaming, 'stream.db'], [twoPasses, 'stream-twice.db']] as const) {
    const streamed = stored(file, importer, dbName);
    const label = `${path.basename(file)} (${dbName})`;
    expect(streamed.problems, label).toEqual(whole.problems);
    expect(streamed.runs, label).toEqual(whole.runs);
    expect(streamed.steps, label).toEqual(whole.steps);
  }
  return stored(file, importOtlpStreaming, 'stream-again.db');
}

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

interface SpanSpec {
  trace?: string;
  id: string;
  parent?: string;
  name?: string;
  start?: number;
  end?: number;
  attrs?: Record<string, string | number>;
  error?: string;
}

function span(s: SpanSpec): Record<string, unknown> {
  return {
    traceId: (s.trace ?? '1').padStart(32, '0'),
    spanId: s.id.padStart(16, '0'),
    ...(s.parent ? { parentSpanId: s.parent.padStart(16, '0') } : {}),
    name: s.name ?? `span-${s.id}`,
    startTimeUnixNano: String((s.start ?? 1) * 1_000_000),
    ...(s.end !== 0 ? { endTimeUnixNano: String((s.end ?? (s.start ?? 1) + 5) * 1_000_000) } : {}),
    attributes: Object.entries(s.attrs ?? {}).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } })),
    status: s.error ? { code: 2, message: s.error } : { code: 1 },
  };
}

function doc(spans: unknown[], resource: Record<string, string> = { 'service.name': 'svc' }): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })) },
        scopeSpans: [{ scope: { name: 'test-scope', version: '2' }, spans }],
      },
    ],
  };
}

/** A run with everything the whole-run rules look at: orphans, a cycle, a repeated id, a doubled LLM call, error text no step explains. */
const RULES_SPANS = [
  span({ id: '1', name: 'agent', start: 10, end: 100, attrs: { 'openinference.span.kind': 'AGENT', 'input.value': 'plan a trip' } }),
  span({ id: '2', parent: '1', name: 'ChatOpenAI', start: 20, end: 40, attrs: { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 12, 'llm.token_count.completion': 3, 'output.value': 'x'.repeat(200) } }),
  span({ id: '3', parent: '1', name: 'openai.chat', start: 21, end: 39, attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 3 } }),
  span({ id: '4', parent: '1', name: 'search', start: 50, end: 60, attrs: { 'openinference.span.kind': 'TOOL', 'output.value': 'upstream said: 503 Service Unavailable' } }),
  span({ id: '5', parent: 'ff', name: 'lost child', start: 70, end: 80 }),
  span({ id: '6', parent: '7', name: 'loop a', start: 81, end: 82 }),
  span({ id: '7', parent: '6', name: 'loop b', start: 83, end: 84 }),
  span({ id: '4', parent: '1', name: 'search again', start: 90, end: 91 }),
  span({ id: '8', parent: '1', name: 'failing tool', start: 92, end: 93, error: 'ValueError: bad input', attrs: { 'openinference.span.kind': 'TOOL' } }),
  span({ id: '9', parent: '1', name: 'never ended', start: 94, end: 0 }),
  { traceId: 'zz', spanId: '12', name: 'bad ids', startTimeUnixNano: '1' },
  span({ id: 'a', parent: '1', name: '', start: 95, end: 96 }),
  { ...span({ id: 'b', parent: '1', start: 97 }), startTimeUnixNano: undefined },
  'not a span',
];

describe('streaming OTLP import matches the whole-document import', () => {
  it('on every OTLP fixture and every OTLP file of the held-out corpus', () => {
    const files = [
      ...fs.readdirSync(path.join(ROOT, 'test/fixtures/foreign')).map((f) => path.join(ROOT, 'test/fixtures/foreign', f)),
      ...fs.readdirSync(path.join(ROOT, 'bench/blame/heldout')).map((f) => path.join(ROOT, 'bench/blame/heldout', f)),
    ].filter((f) => fs.statSync(f).isFile() && /\.jsonl?$/.test(f));
    let otlp = 0;
    for (const file of files) {
      const fd = fs.openSync(file, 'r');
      const format = detectFileFormat(fd, file);
      fs.closeSync(fd);
      if (!('kind' in format) || format.kind !== 'otlp') continue;
      otlp += 1;
      const { steps } = expectSameAsWhole(file);
      expect(steps.length, file).toBeGreaterThan(0);
    }
    expect(otlp).toBeGreaterThanOrEqual(10);
  });

  it('on a run that exercises every whole-run rule, compact, pretty-printed, with a BOM and as JSON Lines', () => {
    const d = doc(RULES_SPANS);
    const compact = expectSameAsWhole(write('rules.json', JSON.stringify(d)));
    expect(compact.problems.join('\n')).toMatch(/appears twice|not in the file|cycle|no trace|not an object|not a valid id|no startTimeUnixNano|has no name/);
    const pretty = expectSameAsWhole(write('rules-pretty.json', JSON.stringify(d, null, 2)));
    // Messages about a pretty-printed document name the line of the span, not line 1.
    expect(pretty.problems.some((p) => !p.includes(' line 1:'))).toBe(true);
    expectSameAsWhole(write('rules-bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(d))])));
    const half = Math.floor(RULES_SPANS.length / 2);
    const lines = [JSON.stringify(doc(RULES_SPANS.slice(0, half))), '{"resourceSpans": [', JSON.stringify(doc(RULES_SPANS.slice(half))), ''].join('\n');
    const jsonl = expectSameAsWhole(write('rules.jsonl', lines));
    expect(jsonl.problems.join('\n')).toContain('line 2: not valid JSON');
  });

  it('when resource and scope come after the spans, with old Collector key names, several traces and several resources', () => {
    const late = {
      resourceSpans: [
        { instrumentationLibrarySpans: [{ spans: RULES_SPANS.slice(0, 5), instrumentationLibrary: { name: 'old-lib', version: '0.9' } }], resource: { attributes: [{ key: 'service.name', value: { stringValue: 'late-svc' } }] } },
        7,
        { resource: { attributes: [{ key: 'traceback.run_id', value: { stringValue: 'exported-run' } }] }, scopeSpans: [{ spans: [span({ trace: '2', id: '21', name: 'other trace' })] }, { scope: { name: 'no spans' } }] },
      ],
      extra: { ignored: [1, 2, { spans: [] }] },
    };
    const r = expectSameAsWhole(write('late.json', JSON.stringify(late)));
    expect(r.runs.length).toBe(2);
    // One trace only: the Traceback export's run id is used.
    expectSameAsWhole(write('one-trace.json', JSON.stringify(doc([span({ id: '1' }), span({ id: '2', parent: '1' })], { 'traceback.run_id': 'exported-run', 'traceback.run.input': '{"q":1}' }))));
  });

  it('with 1,500 traces whose spans are interleaved in one list: a run each, planned over several turns', () => {
    // Each trace's spans among every other trace's (a collector's batch), some traces with the whole-run rules' cases.
    const traces = Array.from({ length: 1500 }, (_, t) => {
      const trace = (t + 1).toString(16);
      const own = [span({ trace, id: '1', name: `root ${t % 40}`, start: t + 1, end: t + 50 }), span({ trace, id: '2', parent: '1', start: t + 2 })];
      if (t % 5 === 0) own.push(span({ trace, id: '3', parent: 'ff', start: t + 3 }));
      if (t % 7 === 0) own.push(...RULES_SPANS.slice(0, 10).map((x) => ({ ...(x as Record<string, unknown>), traceId: trace.padStart(32, '0') })));
      return own;
    });
    const longest = Math.max(...traces.map((t) => t.length));
    const spans = Array.from({ length: longest }, (_, k) => traces.flatMap((t) => (k < t.length ? [t[k]] : []))).flat();
    const r = expectSameAsWhole(write('interleaved.json', JSON.stringify(doc(spans))));
    expect(r.runs.length).toBe(1500);
    expect(r.steps.length).toBeGreaterThan(spans.length - 300);
  });

  it('names the line of a value that is not what OTLP wants in a pretty-printed document, both ways', () => {
    const odd = {
      resourceSpans: [
        { scopeSpans: [{ scope: { name: 'no spans here' } }, { spans: [span({ id: '1', name: 'kept' }), 'not a span'] }] },
        7,
        { instrumentationLibrarySpans: [{ spans: 3 }] },
      ],
    };
    const text = JSON.stringify(odd, null, 2);
    const lines = text.split('\n');
    // The line each odd value starts on, found by its text (each is the only one of its kind).
    const lineOf = (re: RegExp) => lines.findIndex((l) => re.test(l)) + 1;
    const { problems } = expectSameAsWhole(write('odd-pretty.json', text));
    expect(problems).toEqual(
      expect.arrayContaining([
        `error line ${lineOf(/^ {8}\{$/)}: resourceSpans[0].scopeSpans[0]: no "spans" array; skipped`,
        `error line ${lineOf(/"not a span"/)}: resourceSpans[0].scopeSpans[1].spans[1]: not an object; skipped`,
        `error line ${lineOf(/^ {4}7,?$/)}: resourceSpans[1]: not an object; skipped`,
        `error line ${lineOf(/"spans": 3/) - 1}: resourceSpans[2].scopeSpans[0]: no "spans" array; skipped`,
      ]),
    );
    expect(problems.filter((p) => / line 1: /.test(p))).toEqual([]);
  });

  it('cut inside a character of several bytes: the cut is said as a cut, not as invalid UTF-8', () => {
    const text = JSON.stringify(doc([span({ id: '1', name: 'root', start: 10, end: 100 }), span({ id: '2', parent: '1', name: 'café 中文', start: 20, end: 30 })]));
    // The streamed import keeps the spans before a cut (the whole import keeps none): each way it is streamed, and the whole import, say the same of a cut inside a character as of a cut just before it.
    const importers = [[importOtlpStreaming, 'stream.db'], [twoPasses, 'stream-twice.db'], [importWhole, 'whole.db']] as const;
    for (const [character, k] of [['é', 1], ['中', 1], ['中', 2]] as const) {
      const bytes = Buffer.from(text);
      const at = bytes.indexOf(Buffer.from(character));
      for (const [importer, dbName] of importers) {
        const before = stored(write('cut-before.json', bytes.subarray(0, at)), importer, dbName);
        const r = stored(write('cut-inside.json', bytes.subarray(0, at + k)), importer, dbName);
        expect(r.problems.join('\n'), dbName).not.toContain('invalid UTF-8');
        expect(r.problems.map((p) => p.replace(/\d+/g, 'N')), dbName).toEqual(before.problems.map((p) => p.replace(/\d+/g, 'N')));
        expect(r.steps, dbName).toEqual(before.steps);
      }
    }
    // Last bytes that begin no character, or one that can never be whole: both ways say the same of them.
    for (const tail of [[0xc0], [0xf5, 0x80], [0xf4, 0x90], [0x80], [0xe4, 0xb8]]) {
      const bytes = Buffer.concat([Buffer.from(text).subarray(0, Buffer.from(text).indexOf(Buffer.from('中'))), Buffer.from(tail)]);
      const said = importers.map(([importer, dbName]) => stored(write('cut-tail.json', bytes), importer, dbName).problems.filter((p) => p.includes('UTF-8')));
      expect(said[0], tail.join(' ')).toEqual(said[2]);
      expect(said[1], tail.join(' ')).toEqual(said[2]);
    }
    // A byte that is not UTF-8 before such a cut is still said.
    const broken = Buffer.from(text);
    broken[broken.indexOf('root')] = 0xff;
    for (const [importer, dbName] of importers) {
      const r = stored(write('cut-broken.json', broken.subarray(0, broken.indexOf(Buffer.from('中')) + 1)), importer, dbName);
      expect(r.problems.join('\n'), dbName).toContain('invalid UTF-8: 1 character(s)');
    }
  });

  it('with invalid UTF-8, escaped keys and strings full of brackets and quotes', () => {
    const text = JSON.stringify(doc([span({ id: '1', name: 'a "quoted" {name} [x] \\ done', attrs: { 'input.value': 'é ü \\" }]} 🙂' } }), span({ id: '2', parent: '1', name: 'BAD' })]));
    const bytes = Buffer.from(text.replace('"resourceSpans"', '"resource\\u0053pans"'));
    const at = bytes.indexOf('BAD');
    bytes[at] = 0xff;
    const r = expectSameAsWhole(write('utf8.json', bytes));
    expect(r.problems.join('\n')).toContain('invalid UTF-8: 1 character(s)');
    expect(r.steps.length).toBe(2);
  });

  it('on a generated 2,000-step export of a native run', () => {
    const detail = foldRecords(syntheticRunRecords({ runId: 'gen', steps: 2000 }))[0];
    const r = expectSameAsWhole(write('gen.json', JSON.stringify(exportOtlp(detail))));
    expect(r.steps.length).toBe(2000);
  });
});

describe('a file small enough is read once', () => {
  /**
   * Imports `file` and, once the spans are planned and before any is written, renames span "alpha" to "omega"
   * in the file (same length, so every offset stays): the stored name says whether the write read the file again.
   */
  function namesWhenChangedDuringWrite(file: string, opts: { onePassMaxBytes?: number } = {}): string[] {
    const db = openDatabase(path.join(dir, `changed-${path.basename(file)}-${opts.onePassMaxBytes ?? 'default'}.db`));
    const original = fs.readFileSync(file);
    const fd = fs.openSync(file, 'r');
    let changed = false;
    try {
      importOtlpStreaming(db, fd, file, original.length, 'otlp', [], {
        ...opts,
        onProgress: (p) => {
          if (p.phase !== 'write' || changed) return;
          changed = true;
          fs.writeFileSync(file, original.toString('latin1').replace('"alpha"', '"omega"'), 'latin1');
        },
      });
    } finally {
      fs.closeSync(fd);
      fs.writeFileSync(file, original);
    }
    const names = (db.prepare('SELECT name FROM steps ORDER BY idx').all() as { name: string }[]).map((r) => r.name);
    db.close();
    expect(changed).toBe(true);
    return names;
  }

  const SPANS = [span({ id: '1', name: 'alpha', start: 10, end: 100 }), span({ id: '2', parent: '1', name: 'beta', start: 20, end: 30 })];

  it('a file within the budget is read once: its mapped steps are written, the file is not read again', () => {
    const file = write('once.json', JSON.stringify(doc(SPANS)));
    expect(namesWhenChangedDuringWrite(file)).toEqual(['alpha', 'beta']);
  });

  it('a file over the budget is read twice (the write reads the spans again), and stores what the whole import stores', () => {
    const file = write('twice.json', JSON.stringify(doc(SPANS)));
    expect(namesWhenChangedDuringWrite(file, { onePassMaxBytes: fs.statSync(file).size - 1 })).toEqual(['omega', 'beta']);
    expectSameAsWhole(file);
  });

  it('a resource written after its spans is read once, and stores the same rows as two passes and the whole import', () => {
    const late = { resourceSpans: [{ scopeSpans: [{ scope: { name: 'lib', version: '1' }, spans: SPANS }], resource: doc([]).resourceSpans }] };
    late.resourceSpans[0].resource = { attributes: [{ key: 'service.name', value: { stringValue: 'late-svc' } }, { key: 'traceback.run.input', value: { stringValue: '{"q":2}' } }] } as never;
    const file = write('late-resource.json', JSON.stringify(late));
    expect(namesWhenChangedDuringWrite(file)).toEqual(['alpha', 'beta']);
    const r = expectSameAsWhole(file);
    expect(JSON.stringify(r.runs)).toContain('late-svc');
  });

  it('a scope written after its spans makes the write read the spans again (their steps were mapped without it), with the same rows', () => {
    const late = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: SPANS, scope: { name: 'late-lib', version: '3' } }] }] };
    const file = write('late-scope.json', JSON.stringify(late));
    expect(namesWhenChangedDuringWrite(file)).toEqual(['omega', 'beta']);
    const r = expectSameAsWhole(file);
    expect(JSON.stringify(r.steps)).toContain('late-lib@3');
  });
});

describe('a file that changes between the two passes', () => {
  const line = (spans: unknown[]) => JSON.stringify(doc(spans));
  const ROOT_SPAN = span({ id: 'a1', name: 'root', start: 10, end: 100 });
  const CHILD = span({ id: 'a2', parent: 'a1', name: 'child-b', start: 20, end: 30 });
  const edits: Record<string, (text: string) => string> = {
    appended: (t) => `${t}${line([span({ id: 'a3', parent: 'a1', name: 'child-c', start: 40, end: 50 })])}\n`,
    prepended: (t) => `${line([span({ id: 'a9', parent: 'a1', name: 'new-first', start: 5, end: 6 })])}\n${t}`,
    swapped: (t) => `${t.split('\n').slice(0, 2).reverse().join('\n')}\n`,
    shortened: (t) => `${t.split('\n')[0]}\n`,
  };
  for (const [how, edit] of Object.entries(edits)) {
    it(`(${how}) stops with a message instead of writing spans into the wrong plan, or leaves appended lines to the next import; which stores what the whole import does`, () => {
      const file = write(`changing-${how}.jsonl`, `${line([ROOT_SPAN])}\n${line([CHILD])}\n`);
      const db = openDatabase(path.join(dir, `changing-${how}.db`));
      const fd = fs.openSync(file, 'r');
      const errors: ImportError[] = [];
      let edited = false;
      try {
        importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', errors, {
          onePassMaxBytes: 0,
          onProgress: (p) => {
            if (p.phase !== 'write' || edited) return;
            edited = true;
            fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')));
          },
        });
      } finally {
        fs.closeSync(fd);
      }
      expect(edited).toBe(true);
      if (how === 'appended') {
        // Lines written after the first pass are the next import's (a file exporter appends all the time).
        expect(errors).toEqual([]);
        expect(db.prepare('SELECT COUNT(*) FROM steps').pluck().get()).toBe(2);
      } else expect(errors.map((e) => e.message)).toContainEqual(expect.stringContaining('the file changed while it was imported'));
      // Not marked imported: the watcher's next look reads it again, and the rows are those of the file as it is now.
      expect(importFile(db, file, { final: true }).newErrors.filter((e) => e.level === 'error')).toEqual([]);
      const again = (db.prepare('SELECT step_id, parent_id, idx, name, replay_key FROM steps ORDER BY run_id, idx').all() as unknown[]);
      db.close();
      const whole = openDatabase(path.join(dir, `changing-${how}-whole.db`));
      const wfd = fs.openSync(file, 'r');
      importWhole(whole, wfd, file, fs.fstatSync(wfd).size, 'otlp', []);
      fs.closeSync(wfd);
      expect(again).toEqual(whole.prepare('SELECT step_id, parent_id, idx, name, replay_key FROM steps ORDER BY run_id, idx').all());
      whole.close();
    });
  }
});

describe('JSON Lines or one document: the streamed import decides as the whole import does', () => {
  const S1 = span({ id: '1', name: 'first', start: 10, end: 20 });
  const S2 = span({ id: '2', name: 'second', start: 30, end: 40 });
  it('a document laid out one resource per line is one document', () => {
    const d = doc([S1]);
    const text = `{"resourceSpans":[\n${JSON.stringify((d.resourceSpans as unknown[])[0])}\n]}\n`;
    expect(expectSameAsWhole(write('resource-per-line.json', text)).steps).toHaveLength(1);
  });
  it('JSON Lines whose second line is garbage or NUL bytes keep every good line', () => {
    for (const bad of ['GARBAGE', '\u0000\u0000\u0000{']) {
      const r = expectSameAsWhole(write('garbage-second.jsonl', [JSON.stringify(doc([S1])), bad, JSON.stringify(doc([S2])), ''].join('\n')));
      expect(r.steps).toHaveLength(2);
      expect(r.problems.join('\n')).toContain('line 2: not valid JSON');
    }
  });
  it('JSON Lines whose first line holds two requests (two writes without a newline) keep the lines after it', () => {
    const text = [JSON.stringify(doc([S1])) + JSON.stringify(doc([S1])), JSON.stringify(doc([S2])), '{"resourceSpans":[]} x', JSON.stringify(doc([span({ id: '3', start: 50, end: 60 })])), ''].join('\n');
    const r = expectSameAsWhole(write('two-on-first-line.jsonl', text));
    expect(r.steps).toHaveLength(2);
  });
  it('progress never goes back when the first pass starts again as JSON Lines', () => {
    const many = Array.from({ length: 2500 }, (_, i) => span({ id: String(i + 1), start: 10 + i, end: 20 + i }));
    const file = write('restart.jsonl', [JSON.stringify(doc(many)) + JSON.stringify(doc([S1])), JSON.stringify(doc([S2])), ''].join('\n'));
    const db = openDatabase(path.join(dir, 'restart.db'));
    const fd = fs.openSync(file, 'r');
    const seen: { phase: string; bytesDone: number }[] = [];
    try {
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', [], { onProgress: (p) => seen.push({ phase: p.phase, bytesDone: p.bytesDone }) });
    } finally {
      fs.closeSync(fd);
      db.close();
    }
    const index = seen.filter((p) => p.phase === 'index').map((p) => p.bytesDone);
    // The first read passed 2,000 spans (a report) before it found the second document and started again.
    expect(index.length).toBeGreaterThan(1);
    expect(index[0]).toBeGreaterThan(0);
    for (let i = 1; i < index.length; i++) expect(index[i]).toBeGreaterThanOrEqual(index[i - 1]);
  });
  it('JSON Lines whose first two lines are cut keep the lines after them', () => {
    const good = JSON.stringify(doc([S1]));
    const text = [good.slice(0, 30), good.slice(0, 50), good, JSON.stringify(doc([S2])), ''].join('\n');
    const r = expectSameAsWhole(write('cut-first-lines.jsonl', text));
    expect(r.steps).toHaveLength(2);
    expect(r.problems.filter((p) => p.startsWith('error'))).toEqual([
      expect.stringMatching(/^error line 1: line 1: not valid JSON at column \d+: the line ends before its value does/),
      expect.stringMatching(/^error line 2: line 2: not valid JSON/),
    ]);
  });
  it('a broken resource, scope or key escape is named at its line in the reader\'s own words, without an exception', () => {
    const spans = JSON.stringify([S1]);
    const cases = [
      `{"resourceSpans":[\n{"resource":{"attributes":[1,]},\n"scopeSpans":[{"spans":${spans}}]}]}`,
      `{"resourceSpans":[\n{"scopeSpans":[{"scope":{"name":"x",},\n"spans":${spans}}]}]}`,
      `{"resourceSpans":[\n{"scopeSpans":[{"sc\\qope":{},\n"spans":${spans}}]}]}`,
    ];
    cases.forEach((text, i) => {
      const db = openDatabase(path.join(dir, `broken-part-${i}.db`));
      const file = write(`broken-part-${i}.json`, text);
      const errors: ImportError[] = [];
      const fd = fs.openSync(file, 'r');
      expect(() => importForeign(db, fd, file, fs.fstatSync(fd).size, 'otlp', errors)).not.toThrow();
      fs.closeSync(fd);
      const messages = errors.filter((e) => e.level === 'error');
      expect(messages, text).toEqual([expect.objectContaining({ line: 2, message: expect.stringMatching(/^not valid JSON at line 2 /) })]);
      // V8's words quote the file ("Unexpected token ... is not valid JSON"); the reader's do not.
      expect(messages[0].message).not.toMatch(/Unexpected|is not valid JSON|attributes|qope/);
      db.close();
    });
  });
  it('members the reader does not use are read as the whole parse reads them: good ones of every kind import the same, broken ones are named at their line', () => {
    const spans = JSON.stringify([S1]);
    const odd = '{"a":[1,-0.5,2e10,-3E-2,0,true,false,null,"x\\"y\\\\\\/\\b\\f\\n\\r\\t\\u00e9",{},[],[[{"b":{}}]]],"c":"\u00e9"}';
    const good = `{"schemaUrl":"s","x":${odd},"resourceSpans":[{"y":${odd},"resource":{"attributes":[]},"scopeSpans":[{"z":${odd},"scope":{"name":"n"},"spans":${spans}}]}],"w":${odd}}`;
    expect(expectSameAsWhole(write('odd-members.json', good)).steps).toHaveLength(1);
    // Each broken value sits on line 2, in a member the stream skips: at the top, in a resource, in a scope.
    const broken = ['[1,]', '{"a" 1}', '01', '-', '1.', '1e', 'tru', 'nul', '"a\\qb"', '"a\\u12g4"', '"tab\there"', '{"a":1 "b":2}', '[1 2]', '{,}'];
    const places = [
      (v: string) => `{"x":\n${v},"resourceSpans":[{"scopeSpans":[{"spans":${spans}}]}]}`,
      (v: string) => `{"resourceSpans":[{"y":\n${v},"scopeSpans":[{"spans":${spans}}]}]}`,
      (v: string) => `{"resourceSpans":[{"scopeSpans":[{"z":\n${v},"spans":${spans}}]}]}`,
    ];
    places.forEach((place, p) =>
      broken.forEach((value, b) => {
        const text = place(value);
        expect(() => JSON.parse(text), text).toThrow();
        const db = openDatabase(path.join(dir, `skipped-${p}-${b}.db`));
        const file = write(`skipped-${p}-${b}.json`, text);
        const errors: ImportError[] = [];
        const fd = fs.openSync(file, 'r');
        try {
          importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', errors);
        } finally {
          fs.closeSync(fd);
          db.close();
        }
        expect(errors.filter((e) => e.level === 'error'), text).toEqual([expect.objectContaining({ line: 2, message: expect.stringMatching(/^not valid JSON at line 2 /) })]);
      }),
    );
  });
});

describe('a file read again after it grew (a file exporter still writing it)', () => {
  /** The problems stored for the file, `line: message`, by line. */
  const storedProblems = (db: Db) => (db.prepare('SELECT line, message FROM import_errors ORDER BY line').all() as { line: number; message: string }[]).map((p) => `${p.line}: ${p.message}`);

  it('a read cancelled before it stored anything keeps the problems of the read before it', () => {
    const lines = [JSON.stringify(doc([span({ id: 'c1', name: 'first', start: 1, end: 2 })])), '{"broken'];
    // More spans than one turn of the first pass reads, so the cancel comes before any is written.
    for (let i = 0; i < 2500; i++) lines.push(JSON.stringify(doc([span({ trace: 'e', id: (0x100 + i).toString(16), start: 10 + i, end: 11 + i })])));
    const file = write('cancel-early.jsonl', `${lines.join('\n')}\n`);
    const db = openDatabase(path.join(dir, 'cancel-early.db'));
    const fd = fs.openSync(file, 'r');
    const problems = () => storedProblems(db);
    try {
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', []);
      const before = problems();
      expect(before.join('\n')).toContain('2: line 2: not valid JSON');
      const stop = new AbortController();
      stop.abort();
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', [], { signal: stop.signal });
      const after = problems();
      expect(after.filter((p) => !p.includes('import cancelled'))).toEqual(before);
      expect(after.join('\n')).toContain('before any was stored');
    } finally {
      fs.closeSync(fd);
      db.close();
    }
  });

  it('a read cancelled while writing keeps the earlier read\'s problems about the spans it did not reach', () => {
    const lines = [JSON.stringify(doc([span({ id: 'c1', name: 'first', start: 1, end: 2 })]))];
    // More spans than one turn of the write takes, the last with a field over the size cap (stored truncated, and said).
    for (let i = 0; i < 2500; i++) lines.push(JSON.stringify(doc([span({ trace: 'e', id: (0x100 + i).toString(16), start: 10 + i, end: 11 + i })])));
    lines.push(JSON.stringify(doc([span({ trace: 'f', id: 'f1', start: 5000, end: 5001, attrs: { 'output.value': 'x'.repeat(1_100_000) } })])));
    const file = write('cancel-writing.jsonl', `${lines.join('\n')}\n`);
    const db = openDatabase(path.join(dir, 'cancel-writing.db'));
    const fd = fs.openSync(file, 'r');
    const problems = () => storedProblems(db);
    try {
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', []);
      const truncated = problems().filter((p) => p.startsWith(`${lines.length}: `));
      expect(truncated.join('\n')).toMatch(/truncat/);
      // Read again (as after the file changed), cancelled once the write has committed a block.
      const stop = new AbortController();
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', [], { signal: stop.signal, onProgress: (p) => p.phase === 'write' && p.bytesDone > 0 && stop.abort() });
      const after = problems();
      expect(after.join('\n')).toMatch(/import cancelled at byte \d+ of \d+ \([1-9]\d* step\(s\) stored\)/);
      expect(after).toEqual(expect.arrayContaining(truncated));
    } finally {
      fs.closeSync(fd);
      db.close();
    }
  });

  const ROOT_SPAN = span({ id: 'b1', name: 'root', start: 10, end: 100 });
  const CHILD = span({ id: 'b2', parent: 'b1', name: 'child', start: 20, end: 30 });
  /** Imports `first`, then the file as `then` says it is now, as the watcher would; the store after both. */
  function readTwice(name: string, first: string, then: string) {
    const file = write(name, first);
    const db = openDatabase(path.join(dir, `${name}.db`));
    importFile(db, file, { final: true });
    fs.writeFileSync(file, then);
    const second = importFile(db, file, { final: true });
    const stored = {
      steps: db.prepare('SELECT step_id, parent_id, idx FROM steps ORDER BY idx').all(),
      runs: db.prepare('SELECT status FROM runs').all(),
      problems: (db.prepare('SELECT line, message FROM import_errors').all() as { line: number; message: string }[]).map((p) => `${p.line}: ${p.message}`),
    };
    db.close();
    const whole = openDatabase(path.join(dir, `${name}-whole.db`));
    importFile(whole, file, { final: true });
    const once = {
      steps: whole.prepare('SELECT step_id, parent_id, idx FROM steps ORDER BY idx').all(),
      runs: whole.prepare('SELECT status FROM runs').all(),
      problems: (whole.prepare('SELECT line, message FROM import_errors').all() as { line: number; message: string }[]).map((p) => `${p.line}: ${p.message}`),
    };
    whole.close();
    return { stored, once, second };
  }
  it('forgets the problems of the earlier read: a line that was cut then is whole now', () => {
    const lines = [JSON.stringify(doc([ROOT_SPAN])), JSON.stringify(doc([CHILD]))];
    const { stored, once, second } = readTwice('cut-then-whole.jsonl', `${lines[0]}\n${lines[1].slice(0, 60)}`, `${lines.join('\n')}\n`);
    expect(stored).toEqual(once);
    expect(stored.problems).toEqual([]);
    expect(second.newErrors).toEqual([]);
  });
  it('drops the synthetic root it made up for a parent that was not written yet, and the run is no longer incomplete', () => {
    const childFirst = JSON.stringify(doc([CHILD]));
    const { stored, once } = readTwice('parent-later.jsonl', `${childFirst}\n`, `${childFirst}\n${JSON.stringify(doc([ROOT_SPAN]))}\n`);
    expect(stored).toEqual(once);
    expect(stored.steps).toEqual([
      { step_id: '00000000000000b1', parent_id: null, idx: 0 },
      { step_id: '00000000000000b2', parent_id: '00000000000000b1', idx: 1 },
    ]);
    expect(stored.runs).toEqual([{ status: 'ok' }]);
  });
});

describe('a synthetic root for a missing parent', () => {
  it('never takes the id of a recorded step: the recorded one keeps it, the root gets ~2, streamed and whole alike', () => {
    const missing = '00000000000000ff';
    const file = write(
      'clash.json',
      JSON.stringify(
        doc([
          span({ id: '1', name: 'agent', start: 10, end: 100 }),
          // A Traceback export names its steps freely: this one holds the id a synthetic root would take.
          span({ id: '2', parent: '1', name: 'impostor', start: 20, end: 30, attrs: { 'traceback.step_id': `missing-parent:${missing}`, 'output.value': 'recorded output' } }),
          span({ id: '5', parent: 'ff', name: 'lost child', start: 40, end: 50 }),
        ]),
      ),
    );
    const r = expectSameAsWhole(file);
    const steps = r.steps as { step_id: string; parent_id: string | null; name: string; output: string | null }[];
    const recorded = steps.find((s) => s.step_id === `missing-parent:${missing}`)!;
    expect(recorded.name).toBe('impostor');
    expect(recorded.output).toContain('recorded output');
    const root = steps.find((s) => s.step_id === `missing-parent:${missing}~2`)!;
    expect(root.name).toBe(`(missing parent ${missing})`);
    expect(steps.find((s) => s.name === 'lost child')!.parent_id).toBe(root.step_id);
    expect(steps).toHaveLength(4);
  });
});

describe('what only the streaming import does', () => {
  it('a document cut off mid-span keeps every span before the cut and names the line of the cut', () => {
    const spans = Array.from({ length: 40 }, (_, i) => span({ id: String(i + 1), parent: i ? '1' : undefined, start: i + 1 }));
    const text = JSON.stringify(doc(spans), null, 1);
    const cut = text.indexOf('"span-31"');
    const file = write('cut.json', text.slice(0, cut));
    const db = openDatabase(path.join(dir, 'cut.db'));
    const r = importFile(db, file, { final: true });
    const steps = (db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n;
    expect(steps).toBe(30);
    const cutLine = text.slice(0, cut).split('\n').length;
    const problem = r.newErrors.find((e) => e.message.includes('cut off'));
    expect(problem?.line).toBe(cutLine);
    expect(problem?.message).toContain(`line ${cutLine}`);
    // The spans after the cut may have held anything (an error, the answer): the run is not shown as complete.
    expect(db.prepare('SELECT status, ended_at FROM runs').get()).toEqual({ status: 'incomplete', ended_at: null });
    expect(problem?.message).toContain('marked incomplete');
    db.close();
  });

  it('cancelling keeps the committed blocks, says what happened, and a second import finishes the run without duplicates', async () => {
    const detail = foldRecords(syntheticRunRecords({ runId: 'big', steps: 12_000 }))[0];
    const file = write('big.json', JSON.stringify(exportOtlp(detail)));
    const db = openDatabase(path.join(dir, 'cancel.db'));
    await expectCancelledImportFinishedLater(db, file, 'otlp', importOtlpStreamingAsync, 12_000);
    expect((db.prepare("SELECT status FROM runs WHERE run_id = 'big'").get() as { status: string }).status).not.toBe('running');
    db.close();
  });

  it('holds SQLite\'s page cache smaller while streamed imports run, and gives the connection its own back when the last one ends', async () => {
    const file = write('cache.json', JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'cache', steps: 3_000 }))[0])));
    const db = openDatabase(path.join(dir, 'cache.db'));
    const cacheSize = () => db.pragma('cache_size', { simple: true }) as number;
    const usual = cacheSize();
    expect(usual).toBe(-64000);
    const during: number[] = [];
    const importOnce = async () => {
      const fd = fs.openSync(file, 'r');
      try {
        await importOtlpStreamingAsync(db, fd, file, fs.fstatSync(fd).size, 'otlp', [], { onProgress: () => during.push(cacheSize()) });
      } finally {
        fs.closeSync(fd);
      }
    };
    // Two imports at once (the watcher and an explicit import): the first to end must not restore the cache under the other.
    const first = importOnce();
    const second = importOnce();
    await first;
    const afterFirst = cacheSize();
    await second;
    expect(new Set(during)).toEqual(new Set([-16000]));
    expect(afterFirst).toBe(-16000);
    expect(cacheSize()).toBe(usual);
    // A synchronous import that fails half-way gives it back too.
    const fd = fs.openSync(file, 'r');
    expect(() => importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', [], { onProgress: () => { throw new Error('stop'); } })).toThrow('stop');
    fs.closeSync(fd);
    expect(cacheSize()).toBe(usual);
    db.close();
  });

  it('a document that names its spans list twice is imported whole, as JSON.parse reads it (the last list wins)', () => {
    const text = JSON.stringify(doc([span({ id: '1', name: 'first list' })])).replace('"spans":[', '"spans":[{"spanId":"dropped"}],"spans":[');
    const file = write('twice-key.json', text);
    expect(() => stored(file, importOtlpStreaming, 'direct.db')).toThrow(UnusualOtlpShape);
    const r = stored(file, importForeign, 'fallback.db');
    expect(r.steps).toHaveLength(1);
    expect(r.problems).toEqual([]);
  });

  it('a run id with an unpaired surrogate is settled and counted under the id it is stored as', () => {
    // The run id (a Traceback export's) is made well-formed before it is stored; the end of the import must find it.
    const text = JSON.stringify(doc([span({ id: '1', name: 'root', start: 1, end: 9 }), span({ id: '2', parent: '1', start: 2, end: 0 })], { 'traceback.run_id': 'run-\ud800-x' }));
    const file = write('surrogate-run-id.json', text);
    const db = openDatabase(path.join(dir, 'surrogate.db'));
    const fd = fs.openSync(file, 'r');
    try {
      importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', []);
    } finally {
      fs.closeSync(fd);
    }
    const run = db.prepare('SELECT r.run_id, r.status, c.steps FROM runs r LEFT JOIN run_step_counts c USING (run_id)').get();
    db.close();
    // A step that never ended: the run is incomplete, not left "running"; its two steps are counted.
    expect(run).toEqual({ run_id: 'run-\ufffd-x', status: 'incomplete', steps: 2 });
  });

  it('importing the same file twice stores the same rows once', () => {
    const file = write('twice.json', JSON.stringify(doc(RULES_SPANS)));
    const db = openDatabase(path.join(dir, 'twice.db'));
    const fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    importOtlpStreaming(db, fd, file, size, 'otlp', []);
    const first = db.prepare('SELECT * FROM steps ORDER BY run_id, idx').all();
    importOtlpStreaming(db, fd, file, size, 'otlp', []);
    fs.closeSync(fd);
    expect(db.prepare('SELECT * FROM steps ORDER BY run_id, idx').all()).toEqual(first);
    db.close();
  });
});
