/**
 * Importers that never crash (issue 12): parent cycles, deep nesting, huge
 * and deep OTLP files, special files, damaged encodings and id collisions.
 * Each case keeps every good record and says what it changed, naming the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../store/open-database';
import { getRunDetail } from '../store/read-runs';
import { importFile, fileErrors } from './import-file';
import { importWhole } from './import-foreign';
import { importOtlpStreaming } from './otlp/otlp-stream-import';
import { importPaths } from './import-paths';
import { watchInbox } from './watch-inbox';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import type { TraceRecord } from '../../../src-shared/trace-format';
import type { ImportError } from '../../../src-shared/model';

let dir: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-hostile-'));
  db = openDatabase(path.join(dir, 'traces.db'));
});
afterAll(() => db.close());

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

const hexId = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

function otlpDoc(spans: { id: number; parent: number | null; name?: string }[], trace = 1): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'hostile' } }] },
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId: hexId(trace, 16),
              spanId: hexId(s.id, 8),
              ...(s.parent !== null ? { parentSpanId: hexId(s.parent, 8) } : {}),
              name: s.name ?? `span ${s.id}`,
              startTimeUnixNano: String(1_700_000_000_000_000_000 + s.id * 1000),
              endTimeUnixNano: String(1_700_000_000_000_000_000 + s.id * 1000 + 500),
            })),
          },
        ],
      },
    ],
  });
}

const messages = (file: string) => fileErrors(db, file).map((e) => `${e.line}: ${e.message}`);

describe('parent cycles are cut with a warning, never a stack overflow', () => {
  it('OTLP spans that name each other as parents import, and the warning names the run and the span', () => {
    const file = write('cycle.otlp.json', otlpDoc([{ id: 1, parent: 3 }, { id: 2, parent: 1 }, { id: 3, parent: 2 }, { id: 4, parent: null }], 7));
    const r = importFile(db, file, { final: true });
    expect(r.runs).toHaveLength(1);
    expect(getRunDetail(db, r.runs[0]).steps).toHaveLength(4);
    expect(messages(file).join('\n')).toMatch(/parents form a cycle of 3 step\(s\).*was made a root/);
  });

  it('a LangChain flat list with a parent cycle imports', () => {
    const run = (id: string, parent: string) => ({ id, parent_run_id: parent, name: id, run_type: 'chain', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z', inputs: {}, outputs: {} });
    const file = write('cycle.langchain.json', JSON.stringify([run('a', 'b'), run('b', 'a')]));
    const r = importFile(db, file, { final: true });
    expect(r.runs.length).toBeGreaterThan(0);
    expect(messages(file).join('\n')).toMatch(/cycle/);
  });

  it('a native run whose steps are each other’s parents reads back as a forest, and tb show can print it', () => {
    const recs: TraceRecord[] = [
      { type: 'run-start', v: '1.0', run_id: 'native-cycle', pipeline: 'p', ts: 1 },
      { type: 'step-start', run_id: 'native-cycle', step_id: 'a', parent_id: 'b', index: 0, name: 'a', step_type: 'llm', replay_key: 'a#0', ts: 2 },
      { type: 'step-start', run_id: 'native-cycle', step_id: 'b', parent_id: 'a', index: 1, name: 'b', step_type: 'llm', replay_key: 'b#0', ts: 3 },
    ] as TraceRecord[];
    write('inbox-less/native-cycle.jsonl', toJsonl(recs));
    importFile(db, path.join(dir, 'inbox-less/native-cycle.jsonl'), { final: true });
    const d = getRunDetail(db, 'native-cycle');
    expect(d.steps.filter((s) => s.parent_id === null).map((s) => s.step_id)).toEqual(['b']);
    const out = execFileSync(process.execPath, ['--import', 'tsx', path.resolve('src-main/cli/tb.ts'), 'show', 'native-cycle'], { env: { ...process.env, TRACEBACK_HOME: dir }, encoding: 'utf8' });
    expect(out).toMatch(/native-cycle/);
  }, 30_000);
});

describe('size and depth', () => {
  it('a field nested 5,000 deep costs only that field: the records around it are kept, and the warning counts what was dropped', () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const recs = syntheticRunRecords({ runId: 'deep-field', steps: 3 });
    const lines = toJsonl(recs).trimEnd().split('\n');
    lines.splice(2, 0, `{"type":"score","run_id":"deep-field","name":"x","value":1}`);
    lines[1] = lines[1].replace('"input":{', `"input":{"deep":${deep},`);
    const file = write('deep-field.jsonl', lines.join('\n') + '\n');
    importFile(db, file, { final: true });
    const d = getRunDetail(db, 'deep-field');
    expect(d.steps).toHaveLength(3);
    expect(d.run.status).toBe('ok');
    expect(JSON.stringify(d.steps[0].input)).toContain('nested deeper than 256 levels');
    expect(messages(file).join('\n')).toMatch(/^2: field "input": 1 value\(s\) nested deeper than 256 levels were replaced/m);
  });

  it('a pretty-printed file read whole names the line and column of its JSON error, and each chat message its own line', () => {
    const runs = [{ id: 'pp-root', name: 'agent', run_type: 'chain', start_time: 1_795_999_066_315, end_time: 1_795_999_066_400, inputs: { q: 'hi' }, outputs: { a: 'yo' }, child_runs: [] }];
    const pretty = JSON.stringify(runs, null, 2);
    // A comma lost while editing by hand: the error is where the next member starts, not line 1.
    const noComma = pretty.replace('"yo"\n    },', '"yo"\n    }');
    const lc = write('lost-comma.langchain.json', noComma);
    expect(importFile(db, lc, { final: true }).runs).toEqual([]);
    const at = noComma.split('\n').findIndex((l) => l.includes('"child_runs"')) + 1;
    expect(at).toBeGreaterThan(1);
    expect(messages(lc)).toEqual([`${at}: not valid JSON at column 5: expected ',' or '}', found '"'; nothing imported`]);
    // Cut off while written (inside its only run, so no run is complete): one error at its last line.
    const cutText = pretty.slice(0, pretty.indexOf('"child_runs"') + 15);
    const cut = write('cut.langchain.json', cutText);
    importFile(db, cut, { final: true });
    const cutLine = cutText.split('\n').length;
    expect(messages(cut)).toEqual([expect.stringMatching(new RegExp(`^${cutLine}: the file ends inside the LangChain document \\(line ${cutLine}, byte \\d+\\): it was cut off`))]);

    // A chat transcript: a message that is not one is named at the line it starts on.
    const chat = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user' }, { role: 'assistant', content: 'bye' }] };
    const chatText = JSON.stringify(chat, null, 2);
    const transcript = write('pretty.chat.json', chatText);
    importFile(db, transcript, { final: true });
    const third = chatText.split('\n').findIndex((l, i, all) => l.trim() === '{' && all[i + 1].includes('"role": "user"') && !all[i + 2].includes('content')) + 1;
    expect(third).toBeGreaterThan(1);
    expect(messages(transcript)).toEqual([`${third}: messages[2]: not a chat message (needs "content" and "role", "name" or "source"); skipped`]);
    // Cut off: one error at the end, not one per line of the fragments.
    const cutChat = chatText.slice(0, chatText.indexOf('"bye"'));
    const cutFile = write('cut.chat.json', cutChat);
    importFile(db, cutFile, { final: true });
    expect(messages(cutFile)).toEqual([expect.stringMatching(new RegExp(`^${cutChat.split('\n').length}: not valid JSON at column \\d+: the file ends in the middle of the document .*; nothing imported$`))]);
  });

  it('OTLP JSON Lines with more broken lines than good, read whole, keep their good lines', () => {
    const good = (id: number) => JSON.stringify(JSON.parse(otlpDoc([{ id, parent: null, name: `kept ${id}` }], id)));
    const text = ['', '', good(1), good(2).slice(0, 40), '"resourceSpans": [', '}', good(3)].join('\n');
    const file = write('mostly-broken.otlp.jsonl', text);
    const fd = fs.openSync(file, 'r');
    const errors: ImportError[] = [];
    try {
      importWhole(db, fd, file, fs.fstatSync(fd).size, 'otlp', errors);
    } finally {
      fs.closeSync(fd);
    }
    const runs = db.prepare("SELECT COUNT(*) AS n FROM steps WHERE name IN ('kept 1', 'kept 3')").get() as { n: number };
    expect(runs.n).toBe(2);
    expect(errors.filter((e) => e.level === 'error').map((e) => e.line)).toEqual([4, 5, 6]);
  });

  it('a field over the size cap in a foreign file is named with the line of its span or run, not line 1', () => {
    const huge = 'x'.repeat(1_100_000);
    // OTLP as JSON Lines: one request per line, the big span on line 3.
    const request = (id: number, attrs: { key: string; value: { stringValue: string } }[] = []) => {
      const doc = JSON.parse(otlpDoc([{ id, parent: null }], id));
      doc.resourceSpans[0].scopeSpans[0].spans[0].attributes = attrs;
      return JSON.stringify(doc);
    };
    const jsonl = [request(1), request(2), request(3, [{ key: 'input.value', value: { stringValue: huge } }])].join('\n') + '\n';
    for (const [name, opts] of [['read once', {}], ['read twice', { onePassMaxBytes: 0 }]] as const) {
      const file = write(`big-field-${name.replace(' ', '-')}.otlp.jsonl`, jsonl);
      const errors: ImportError[] = [];
      const fd = fs.openSync(file, 'r');
      try {
        importOtlpStreaming(db, fd, file, fs.fstatSync(fd).size, 'otlp', errors, opts);
      } finally {
        fs.closeSync(fd);
      }
      const capped = errors.filter((e) => e.message.includes('exceeds the size cap'));
      expect(capped.length, name).toBeGreaterThan(0);
      expect(capped.map((e) => e.line), name).toEqual(capped.map(() => 3));
    }
    // A LangChain run tree, pretty-printed: the warning names the line where the big run starts.
    const children = Array.from({ length: 4 }, (_, i) => ({ id: `big-child-${i}`, name: `tool ${i}`, run_type: 'tool', parent_run_id: 'big-root', start_time: 1_795_999_066_320 + i, end_time: 1_795_999_066_321 + i, inputs: { i }, outputs: { text: i === 2 ? huge : 'ok' } }));
    const text = JSON.stringify([{ id: 'big-root', name: 'agent', run_type: 'chain', start_time: 1_795_999_066_315, end_time: 1_795_999_066_400, inputs: { q: 'hi' }, outputs: { a: 'yo' }, child_runs: children }], null, 1);
    const lc = write('big-field.langchain.json', text);
    importFile(db, lc, { final: true });
    const runLine = text.split('\n').findIndex((l) => l.includes('"id": "big-child-2"')) + 1;
    expect(runLine).toBeGreaterThan(1);
    const capped = messages(lc).filter((m) => m.includes('exceeds the size cap'));
    // The output, and the raw fields kept in metadata beside it.
    expect(capped.sort()).toEqual([
      `${runLine}: run big-root, step big-child-2: field "metadata" exceeds the size cap and was stored truncated`,
      `${runLine}: run big-root, step big-child-2: field "output" exceeds the size cap and was stored truncated`,
    ]);
  });

  it('an OTLP file of 100,000 spans imports (no spread of a large array), in linear time', () => {
    const spans = Array.from({ length: 100_000 }, (_, i) => ({ id: i + 1, parent: i === 0 ? null : 1 }));
    const file = write('wide.otlp.json', otlpDoc(spans, 2));
    const t0 = performance.now();
    const r = importFile(db, file, { final: true });
    const ms = performance.now() - t0;
    expect(getRunDetail(db, r.runs[0]).steps).toHaveLength(100_000);
    console.log(`OTLP 100,000 spans: ${Math.round(ms)} ms`);
  }, 120_000);

  it('a deep OTLP chain of 50,000 spans imports in seconds, not minutes, with replay keys of bounded length', () => {
    const spans = Array.from({ length: 50_000 }, (_, i) => ({ id: i + 1, parent: i === 0 ? null : i }));
    const file = write('chain.otlp.json', otlpDoc(spans, 3));
    const t0 = performance.now();
    const r = importFile(db, file, { final: true });
    const ms = performance.now() - t0;
    const d = getRunDetail(db, r.runs[0]);
    expect(d.steps).toHaveLength(50_000);
    expect(Math.max(...d.steps.slice(0, 1000).map((s) => s.replay_key.length))).toBeLessThan(1200);
    expect(messages(file).join('\n')).toMatch(/nested too deep for a path-like replay key/);
    console.log(`OTLP chain of 50,000 spans: ${Math.round(ms)} ms`);
    expect(ms).toBeLessThan(60_000);
  }, 120_000);

  it('LangChain child_runs nested 1,000 deep are all kept (no silent cut at 500)', () => {
    let node: Record<string, unknown> = { id: 'n1000', name: 'leaf', run_type: 'llm', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' };
    for (let i = 999; i >= 1; i--) node = { id: `n${i}`, name: `level ${i}`, run_type: 'chain', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z', child_runs: [node] };
    const file = write('deep.langchain.json', JSON.stringify(node));
    const r = importFile(db, file, { final: true });
    expect(getRunDetail(db, r.runs[0]).steps).toHaveLength(1000);
  });

  it('20,000 small runs in one native file import in seconds', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => toJsonl(syntheticRunRecords({ runId: `many-${i}`, steps: 1 }))).join('');
    const file = write('many.jsonl', text);
    const t0 = performance.now();
    const r = importFile(db, file, { final: true });
    const ms = performance.now() - t0;
    expect(r.runs).toHaveLength(20_000);
    console.log(`20,000 runs in one ${Math.round(text.length / 1e5) / 10} MB file: ${Math.round(ms)} ms`);
    expect(ms).toBeLessThan(60_000);
  }, 120_000);
});

describe('a tailed file never sticks', () => {
  it('a record the store cannot take costs only its line: the rest of its block is kept, the error is stored, and the file goes on', () => {
    const recs = syntheticRunRecords({ runId: 'sticky', steps: 3, unfinished: true });
    const lines = toJsonl(recs).trimEnd().split('\n');
    // A valid record the store refuses (here a trigger stands in for whatever SQLite may refuse one day).
    db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON steps WHEN NEW.step_id = 'poison' BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END`);
    lines.splice(3, 0, JSON.stringify({ type: 'step-start', run_id: 'sticky', step_id: 'poison', parent_id: null, index: 9, name: 'poison', step_type: 'tool', replay_key: 'poison#0', ts: 1_700_000_000_050 }));
    const file = write('sticky.jsonl', lines.join('\n') + '\n');
    let first: ReturnType<typeof importFile>;
    try {
      first = importFile(db, file);
    } finally {
      db.exec('DROP TRIGGER refuse_poison');
    }
    expect(getRunDetail(db, 'sticky').steps).toHaveLength(3);
    expect(messages(file).join('\n')).toMatch(/^4: record could not be stored \(refused by a test trigger\); skipped/m);
    expect(first.linesRead).toBe(lines.length);
    // Nothing is read twice, and what the writer appends next is imported.
    expect(importFile(db, file).linesRead).toBe(0);
    fs.appendFileSync(file, JSON.stringify({ type: 'run-end', run_id: 'sticky', ts: 1_700_000_000_100, status: 'ok' }) + '\n');
    expect(importFile(db, file).linesRead).toBe(1);
    expect(getRunDetail(db, 'sticky').run.status).toBe('ok');
  });
});

describe('damaged encodings and versions are reported, not silently changed', () => {
  it('a UTF-8 byte-order mark no longer drops the run-start; it is reported', () => {
    const file = write('bom.jsonl', '\ufeff' + toJsonl(syntheticRunRecords({ runId: 'bom-run', steps: 1, pipeline: 'bom-pipeline' })));
    importFile(db, file, { final: true });
    expect(getRunDetail(db, 'bom-run').run.pipeline).toBe('bom-pipeline');
    expect(messages(file)).toContain('1: a UTF-8 byte-order mark at the start of the file was ignored');
  });

  it('invalid UTF-8 is reported with its line and the count of replaced characters', () => {
    const text = toJsonl(syntheticRunRecords({ runId: 'bad-utf8', steps: 1 }));
    const lines = text.split('\n');
    const bytes = Buffer.concat([Buffer.from(lines[0] + '\n'), Buffer.from(lines[1].replace('input of step 0', 'input XX')), Buffer.from('\n' + lines.slice(2).join('\n'))]);
    const at = bytes.indexOf('XX');
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    const file = write('bad-utf8.jsonl', bytes);
    importFile(db, file, { final: true });
    expect(getRunDetail(db, 'bad-utf8').steps).toHaveLength(1);
    expect(messages(file)).toContain('2: invalid UTF-8: 2 character(s) replaced by U+FFFD');
  });

  it('a LangChain run id holding a lone surrogate is made well-formed and said once for its run, streamed or whole', () => {
    // 60 runs, each naming the bad id (its own id or its parent's): one warning, not one per record.
    const root = '\ud800-root';
    const children = Array.from({ length: 59 }, (_, i) => ({ id: `child-${i}`, name: `tool ${i}`, run_type: 'tool', parent_run_id: root, start_time: 1_795_999_066_320 + i, end_time: 1_795_999_066_321 + i, inputs: { i }, outputs: { ok: true } }));
    const text = JSON.stringify([{ id: root, name: 'agent', run_type: 'chain', start_time: 1_795_999_066_315, end_time: 1_795_999_066_400, inputs: { q: 'hi' }, outputs: { a: 'yo' }, child_runs: children }]);
    expect(text).toContain('\\ud800');
    const streamed = write('surrogate-id.langchain.json', text);
    const r = importFile(db, streamed, { final: true });
    const said = messages(streamed).filter((m) => m.includes('UTF-16'));
    expect(said).toEqual(['1: run \ufffd-root: unpaired UTF-16 surrogates replaced by U+FFFD in parent_id, run_id, step_id']);
    expect(r.runs).toEqual(['\ufffd-root']);
    expect(getRunDetail(db, '\ufffd-root').steps).toHaveLength(60);
    // The whole-document import (what a file the stream cannot follow falls back to) says the same once.
    const other = openDatabase(':memory:');
    const whole = (file: string) => {
      const errors: ImportError[] = [];
      const fd = fs.openSync(file, 'r');
      try {
        const result = importWhole(other, fd, file, fs.fstatSync(fd).size, 'langchain', errors);
        return { runs: result.runs, said: errors.map((e) => `${e.line}: ${e.message}`).filter((m) => m.includes('UTF-16')) };
      } finally {
        fs.closeSync(fd);
      }
    };
    expect(whole(streamed).said).toEqual(said);
    // A second file with the same run id: its run is stored under a new id, and the warning names that id, both ways.
    const copy = write('surrogate-id-copy.langchain.json', text);
    const renamedWhole = whole(copy);
    expect(renamedWhole.runs).toHaveLength(1);
    expect(renamedWhole.runs[0]).not.toBe('\ufffd-root');
    expect(renamedWhole.said).toEqual([`1: run ${renamedWhole.runs[0]}: unpaired UTF-16 surrogates replaced by U+FFFD in parent_id, run_id, step_id`]);
    const renamedStreamed = importFile(db, copy, { final: true });
    expect(messages(copy).filter((m) => m.includes('UTF-16'))).toEqual([`1: run ${renamedStreamed.runs[0]}: unpaired UTF-16 surrogates replaced by U+FFFD in parent_id, run_id, step_id`]);
    other.close();
  });

  it('a run-start of an unknown major version says that the lines before it were imported', () => {
    const good = toJsonl(syntheticRunRecords({ runId: 'before-bad-v', steps: 1 }));
    const file = write('bad-v.jsonl', good + JSON.stringify({ type: 'run-start', v: '9.0', run_id: 'future', pipeline: 'p', ts: 1 }) + '\n');
    importFile(db, file, { final: true });
    expect(getRunDetail(db, 'before-bad-v').steps).toHaveLength(1);
    expect(messages(file).join('\n')).toMatch(/line 5 and the rest of the file were not imported \(the 4 line\(s\) before it were\)/);
  });

  it('a 10 MB junk first line does not make the file "unknown format": the junk is reported and the run kept', () => {
    const file = write('junk-first.jsonl', 'x'.repeat(10 * 1024 * 1024) + '\n' + toJsonl(syntheticRunRecords({ runId: 'after-junk', steps: 2 })));
    importFile(db, file, { final: true });
    expect(getRunDetail(db, 'after-junk').steps).toHaveLength(2);
    expect(messages(file).some((m) => m.startsWith('1: invalid JSON'))).toBe(true);
  }, 30_000);
});

describe('special files and id collisions', () => {
  it('a FIFO and a dangling link in a folder are skipped with a warning; the good file beside them is imported', () => {
    const folder = path.join(dir, 'mixed');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'good.jsonl'), toJsonl(syntheticRunRecords({ runId: 'beside-fifo', steps: 1 })));
    if (process.platform === 'win32') return;
    execFileSync('mkfifo', [path.join(folder, 'pipe.jsonl')]);
    fs.symlinkSync(path.join(folder, 'nowhere.jsonl'), path.join(folder, 'dangling.jsonl'));
    const r = importPaths(db, [folder]);
    expect(r.imported.map((i) => path.basename(i.file))).toEqual(['good.jsonl']);
    const text = r.errors.map((e) => `${path.basename(e.file)}: ${e.message}`).join('\n');
    expect(text).toMatch(/pipe\.jsonl: skipped: a named pipe/);
    expect(text).toMatch(/dangling\.jsonl: skipped: a link to nothing/);
    // Named directly, a FIFO is not opened for a blocking read either.
    expect(importFile(db, path.join(folder, 'pipe.jsonl')).newErrors[0].message).toMatch(/named pipe/);
  });

  it('a FIFO in the watched inbox does not freeze the watcher: a file written after it is imported', async () => {
    if (process.platform === 'win32') return;
    const inbox = path.join(dir, 'watched');
    fs.mkdirSync(inbox);
    execFileSync('mkfifo', [path.join(inbox, 'a-pipe.jsonl')]);
    const changed: string[] = [];
    const w = watchInbox(db, inbox, { onRunsChanged: (ids) => changed.push(...ids), onErrors: () => {} });
    await w.ready;
    fs.writeFileSync(path.join(inbox, 'b-run.jsonl'), toJsonl(syntheticRunRecords({ runId: 'after-fifo', steps: 1 })));
    await expect.poll(() => changed.includes('after-fifo'), { timeout: 10_000 }).toBe(true);
    await w.close();
  });

  it('two files claiming one run id keep both runs: the second gets a suffix and the import says so', () => {
    const a = write('collide/a.jsonl', toJsonl(syntheticRunRecords({ runId: 'same-id', steps: 1, pipeline: 'first' })));
    const b = write('collide/b.jsonl', toJsonl(syntheticRunRecords({ runId: 'same-id', steps: 2, pipeline: 'second' })));
    importFile(db, a, { final: true });
    importFile(db, b, { final: true });
    expect(getRunDetail(db, 'same-id').run.pipeline).toBe('first');
    expect(getRunDetail(db, 'same-id~2').run.pipeline).toBe('second');
    expect(getRunDetail(db, 'same-id~2').steps).toHaveLength(2);
    expect(messages(b).join('\n')).toMatch(/run id "same-id" is already used by a run from .*a\.jsonl; this file's run is kept separately as "same-id~2"/);
    // Growing the second file goes on writing to its own run, without a new warning.
    fs.appendFileSync(b, JSON.stringify({ type: 'verdict', run_id: 'same-id', pass: false }) + '\n');
    importFile(db, b, { final: true });
    expect(getRunDetail(db, 'same-id~2').run.verdict?.pass).toBe(false);
    expect(getRunDetail(db, 'same-id').run.verdict).toBeNull();
    expect(messages(b).filter((m) => m.includes('already used'))).toHaveLength(1);
  });
});
