/**
 * The streaming LangChain import stores exactly what the whole-document
 * import stores (same runs, steps, fields and problems) on every LangChain
 * fixture and held-out file, and on trees shaped to trip a one-pass reader
 * (members after child_runs, thousands deep, children listed before parents,
 * runs out of LangChain's order); it falls back to the whole import for what
 * it cannot follow, stops when cancelled without losing committed blocks, and
 * reports progress.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportError } from '../../../../src-shared/model';
import type { ImportProgress } from '../../../../src-shared/import-progress';
import { openDatabase, type Db } from '../../store/open-database';
import { runOwedCheckpoint } from '../../store/bulk-write';
import { detectFileFormat } from '../foreign-formats';
import { importForeign, importWhole } from '../import-foreign';
import { importFileAsync } from '../import-file-async';
import { importLangChainStreaming, importLangChainStreamingAsync } from './run-tree-stream-import';
import { UnusualRunTreeShape } from './run-tree-walk';
import { fuzzCase } from '../../../../test/fuzz/trace-mutations';
import { expectCancelledImportFinishedLater } from '../../../../test/support/streamed-import';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-lc-stream-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type Importer = (db: Db, fd: number, file: string, size: number, format: string, errors: ImportError[]) => unknown;

/** Everything a user could see of an import: rows of runs and steps (but the import clock), and the problems, as sorted text. */
function stored(file: string, importer: Importer, dbName: string): { runs: Record<string, unknown>[]; steps: Record<string, unknown>[]; problems: string[] } {
  const db = openDatabase(path.join(dir, dbName));
  const fd = fs.openSync(file, 'r');
  const errors: ImportError[] = [];
  try {
    importer(db, fd, file, fs.fstatSync(fd).size, 'langchain', errors);
  } catch (err) {
    db.close();
    throw err;
  } finally {
    fs.closeSync(fd);
  }
  const runs = (db.prepare('SELECT * FROM runs ORDER BY run_id').all() as Record<string, unknown>[]).map(({ imported_at: _i, updated_at: _u, ...rest }) => rest);
  const steps = db.prepare('SELECT * FROM steps ORDER BY run_id, idx, step_id').all() as Record<string, unknown>[];
  const problems = errors.map((e) => `${e.level} line ${e.line}: ${e.message}`).sort();
  db.close();
  return { runs, steps, problems };
}

/** Streamed with the default budget, and with a budget so small that every run waiting for its turn forces another round. */
const tinyBudget: Importer = (db, fd, file, size, format, errors) => importLangChainStreaming(db, fd, file, size, format, errors, { reorderBudgetBytes: 1 });

function expectSameAsWhole(file: string, importers: [Importer, string][] = [[importLangChainStreaming, 'stream.db'], [tinyBudget, 'stream-rounds.db']]): ReturnType<typeof stored> {
  const whole = stored(file, importWhole, 'whole.db');
  fs.rmSync(path.join(dir, 'whole.db'));
  // Called directly, not through importForeign: a file the walk gave up on would fail here, not fall back.
  for (const [importer, dbName] of importers) {
    const streamed = stored(file, importer, dbName);
    const label = `${path.basename(file)} (${dbName})`;
    expect(streamed.problems, label).toEqual(whole.problems);
    expect(streamed.runs, label).toEqual(whole.runs);
    expect(streamed.steps, label).toEqual(whole.steps);
    fs.rmSync(path.join(dir, dbName));
  }
  return whole;
}

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

function langChainFiles(): string[] {
  const files = [path.join(ROOT, 'test/fixtures/foreign/langchain-run-tree-langgraph.json')];
  const heldout = path.join(ROOT, 'bench/blame/heldout');
  for (const f of fs.readdirSync(heldout).sort()) {
    if (!f.endsWith('.json') || f === 'labels.json') continue;
    const full = path.join(heldout, f);
    const fd = fs.openSync(full, 'r');
    const kind = detectFileFormat(fd, full).kind;
    fs.closeSync(fd);
    if (kind === 'langchain') files.push(full);
  }
  return files;
}

type LcRun = { id?: string; name?: string; run_type?: string; start_time?: number | string; end_time?: number; child_runs?: LcRun[]; parent_run_id?: string; dotted_order?: string; [k: string]: unknown };

function fixture(): LcRun[] {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/foreign/langchain-run-tree-langgraph.json'), 'utf8')) as LcRun[];
}

function flatten(doc: LcRun[]): LcRun[] {
  const flat: LcRun[] = [];
  const walk = (r: LcRun) => {
    flat.push({ ...r, child_runs: [] });
    (r.child_runs ?? []).forEach(walk);
  };
  doc.forEach(walk);
  return flat;
}

/** A chain of `depth` runs, each the only child of the one before, with members after child_runs as LangChain JS writes them. */
function deepChain(depth: number): string {
  let inner = '';
  for (let d = depth - 1; d >= 0; d--) {
    const child = inner ? `[${inner}]` : '[]';
    inner = `{"id":"run-${d}","name":"${d % 2 ? 'agent' : 'tool'}","start_time":${1_700_000_000_000 + d},"inputs":{"n":${d}},"child_runs":${child},"run_type":"${d % 2 ? 'chain' : 'tool'}","end_time":${1_700_000_100_000 - d},"outputs":{"output":"done ${d}"}}`;
  }
  return `[${inner}]`;
}

describe('streaming LangChain import matches the whole-document import', () => {
  it('on every LangChain fixture and held-out file', () => {
    const files = langChainFiles();
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const file of files) {
      const { steps, problems } = expectSameAsWhole(file);
      expect(steps.length, file).toBeGreaterThan(0);
      expect(problems.filter((p) => p.startsWith('error')), file).toEqual([]);
    }
  });

  it('on the fixture pretty-printed, compact, in a {"runs": [...]} wrapper, as one root, and with a BOM', () => {
    const doc = fixture();
    expectSameAsWhole(write('compact.json', JSON.stringify(doc)));
    expectSameAsWhole(write('wrapped.json', JSON.stringify({ project: 'support', runs: doc }, null, 2)));
    expectSameAsWhole(write('single.json', JSON.stringify(doc[0], null, 1)));
    const r = expectSameAsWhole(write('bom.json', '\ufeff' + JSON.stringify(doc, null, 2)));
    expect(r.problems.join('\n')).toContain('byte-order mark');
  });

  it('on the fixture test\'s variants: LangSmith ISO times with microseconds, and a nested run without an id', () => {
    const iso = fixture();
    const rewrite = (r: LcRun) => {
      r.start_time = new Date(r.start_time as number).toISOString().replace('Z', '123');
      if (r.end_time !== undefined) r.end_time = new Date(r.end_time).toISOString().replace('Z', '456') as unknown as number;
      (r.child_runs ?? []).forEach(rewrite);
    };
    iso.forEach(rewrite);
    expectSameAsWhole(write('iso.json', JSON.stringify(iso)));
    const broken = fixture();
    delete broken[0].child_runs![1].id;
    const r = expectSameAsWhole(write('broken.json', JSON.stringify(broken, null, 1)));
    expect(r.problems.join('\n')).toContain('[0].child_runs[1]: no "id"');
  });

  it('on a flat LangSmith list linked by parent_run_id, children before parents', () => {
    const flat = flatten(fixture()).reverse();
    const r = expectSameAsWhole(write('flat.json', JSON.stringify(flat, null, 2)));
    expect(r.runs).toHaveLength(3);
  });

  it('on runs that start in the same millisecond, listed against LangChain\'s own order', () => {
    const flat = flatten(fixture());
    const root = flat[0];
    const siblings = ['c', 'a', 'b', 'a2'].map((k, i) => ({ ...root, id: `same-ms-${k}`, name: `tick-${k}`, parent_run_id: root.id, child_runs: [], dotted_order: `${String(root.dotted_order)}.x${k}`, execution_order: 100 - i, start_time: root.start_time }));
    const r = expectSameAsWhole(write('ties.json', JSON.stringify([...siblings, ...flat])));
    expect(r.steps.filter((s) => String(s.name).startsWith('tick-')).map((s) => s.name)).toEqual(['tick-a', 'tick-a2', 'tick-b', 'tick-c']);
  });

  it('on runs that start together whose order is read from the file again: escaped and non-ASCII dotted orders, a repeated key, execution_order alone, neither, and a repeated id', () => {
    const t = 1_700_000_000_050;
    const kid = (id: string, order: string) => `{"id":"${id}","name":"${id}","run_type":"tool","start_time":${t},"end_time":${t + 5}${order}}`;
    const kids = [
      kid('k1', ',"dotted_order":"b\\u00e9"'),
      kid('k2', ',"dotted_order":"bz","extra":{},"dotted_order":"a\\ud83d\\ude00"'),
      kid('k3', ',"execution_order":7'),
      kid('k4', ''),
      kid('k5', ',"dotted_order":"b\\uffff"'),
      kid('k6', ',"dotted_order":"b\\ud83d\\ude00"'),
      kid('k7', ',"dotted_order":5,"execution_order":3'),
      kid('dup', ',"dotted_order":"c"'),
      kid('k8', ',"dotted_order":"bb"'),
      kid('dup', ',"dotted_order":"a"'),
    ];
    const text = `[{"id":"root","name":"root","start_time":${t - 50},"child_runs":[\n${kids.join(',\n')}\n],"run_type":"chain","end_time":${t + 50}}]`;
    const r = expectSameAsWhole(write('ties-read-again.json', text));
    // By UTF-16 code unit, as the whole parser compares: '' < '0…3' < '0…7' < 'a…' < 'b…' ('bb' < 'bé' < U+D83D < U+FFFF).
    expect(r.steps.filter((s) => s.name !== 'root').map((s) => s.name)).toEqual(['k4', 'k7', 'k3', 'dup', 'k2', 'k8', 'k1', 'k6', 'k5']);
  });

  it('on an array of roots, each with members after its child_runs', () => {
    const roots = [0, 1, 2].map((k) => `{"id":"root-${k}","name":"r${k}","start_time":${1_700_000_000_000 + k * 10},"child_runs":[{"id":"kid-${k}","name":"k","start_time":${1_700_000_000_001 + k * 10},"run_type":"llm","inputs":{"messages":[[{"role":"user","content":"q${k}"}]]},"end_time":${1_700_000_000_005 + k * 10}}],"run_type":"chain","end_time":${1_700_000_000_009 + k * 10},"outputs":{"output":"a${k}"}}`);
    const r = expectSameAsWhole(write('roots.json', `[\n${roots.join(',\n')}\n]`));
    expect(r.runs).toHaveLength(3);
    expect(r.steps).toHaveLength(6);
  });

  it('on child_runs 3,000 deep (paths shortened past 50 levels, keys from ids past 1,000 characters)', () => {
    const r = expectSameAsWhole(write('deep.json', deepChain(3000)), [[importLangChainStreaming, 'stream.db']]);
    expect(r.steps).toHaveLength(3000);
    expect(r.runs).toHaveLength(1);
  });

  it('below objects that are not runs, 2,000 of them nested, with runs and a non-run inside them: nothing is read, as the whole import reads nothing', () => {
    const inner = '{"id":"inner","run_type":"tool","name":"t","start_time":1,"child_runs":[{"x":2}]}';
    const chain = '{"x":1,"child_runs":['.repeat(2000) + inner + ']}'.repeat(2000);
    const r = expectSameAsWhole(write('non-runs.json', `{"id":"r","run_type":"chain","name":"root","start_time":0,"child_runs":[${chain},{"id":"sibling","run_type":"llm","name":"m","start_time":2}]}`));
    expect(r.steps.map((s) => s.step_id)).toEqual(['r', 'sibling']);
    expect(r.problems.filter((p) => p.includes('not a LangChain run'))).toHaveLength(1);
  });

  it('on the whole-run rules: repeated ids, missing parents, a cycle, runs without id or start, values that are not runs', () => {
    const flat = flatten(fixture());
    const broken = [
      ...flat,
      { ...flat[3], name: 'copy of a step' },
      { ...flat[4], id: 'orphan-1', parent_run_id: 'never-recorded', name: 'orphan' },
      { id: 'cyc-a', name: 'a', run_type: 'chain', start_time: 1_795_999_066_400, parent_run_id: 'cyc-b' },
      { id: 'cyc-b', name: 'b', run_type: 'chain', start_time: 1_795_999_066_401, parent_run_id: 'cyc-a' },
      { name: 'no id', run_type: 'chain', start_time: 1 },
      { id: 'no-start', name: 'no start', run_type: 'chain', start_time: 'yesterday', child_runs: [{ id: 'kept-kid', name: 'kid', run_type: 'tool', start_time: 5 }] },
      { kind: 'not a run', child_runs: [{ id: 'unread', name: 'unread', run_type: 'chain', start_time: 1 }] },
      42,
      { id: 'upstream', name: 'reader', run_type: 'tool', start_time: 1_795_999_066_500, parent_run_id: flat[0].id, outputs: { output: 'ValueError: upstream service returned 503 Service Unavailable' } },
    ];
    const r = expectSameAsWhole(write('rules.json', JSON.stringify(broken, null, 2)));
    const text = r.problems.join('\n');
    for (const pattern of [/appears twice/, /not in the file/, /cycle/, /no "id"/, /no valid "start_time"/, /not a LangChain run/, /no trace/]) expect(text).toMatch(pattern);
    expect(text).not.toContain('resourceSpans');
    expect(r.problems.some((p) => !p.includes(' line 1:'))).toBe(true);
  });
});

describe('what the streaming LangChain import leaves to the whole import', () => {
  it('on the fuzz corpus\'s LangChain files (damaged bytes and structure): what streams stores what the whole import does, the rest falls back', () => {
    let streamedFiles = 0;
    let fellBack = 0;
    let cutFiles = 0;
    const parses = (bytes: Buffer) => {
      try {
        JSON.parse(bytes.toString('utf8').replace(/^\ufeff/, ''));
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 420; i++) {
      const c = fuzzCase(12, i);
      if (!c.format.startsWith('langchain')) continue;
      const file = path.join(dir, c.name);
      fs.writeFileSync(file, c.bytes);
      const fd = fs.openSync(file, 'r');
      const kind = detectFileFormat(fd, file).kind;
      fs.closeSync(fd);
      if (kind !== 'langchain') continue;
      try {
        // A file cut off mid-write is the stream's alone (the whole import reads nothing of it): it names the cut.
        const cut = !parses(c.bytes) && stored(file, importLangChainStreaming, 'cut.db').problems.some((p) => p.includes('it was cut off'));
        fs.rmSync(path.join(dir, 'cut.db'), { force: true });
        if (cut) cutFiles += 1;
        else {
          expectSameAsWhole(file, [[importLangChainStreaming, 'fuzz.db']]);
          streamedFiles += 1;
        }
      } catch (err) {
        if (!(err instanceof UnusualRunTreeShape)) throw err;
        fs.rmSync(path.join(dir, 'fuzz.db'), { force: true });
        fellBack += 1;
      }
      fs.rmSync(file);
    }
    expect(streamedFiles).toBeGreaterThan(50);
    expect(fellBack).toBeGreaterThan(5);
    expect(cutFiles).toBeGreaterThan(0);
  }, 120_000);

  it.each([
    ['text after the document', (t: string) => `${t}\n{"more": 1}`],
    ['a broken value the walk steps over', (t: string) => t.replace('"serialized": {', '"serialized": {"x": tru,')],
    ['child_runs given twice', (t: string) => t.replace('"child_runs": [', '"child_runs": [], "child_runs": [')],
    ['a top that is not an array or object', () => '"just text"'],
  ])('%s: the stream gives up before storing anything, and importForeign stores what the whole import does', (_what, damage) => {
    const file = write('damaged.json', damage(JSON.stringify(fixture(), null, 1)));
    const db = openDatabase(path.join(dir, 'give-up.db'));
    const fd = fs.openSync(file, 'r');
    expect(() => importLangChainStreaming(db, fd, file, fs.fstatSync(fd).size, 'langchain', [])).toThrow(UnusualRunTreeShape);
    fs.closeSync(fd);
    expect((db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n).toBe(0);
    db.close();
    const viaForeign: Importer = (d, f, name, size, format, errors) => importForeign(d, f, name, size, format, errors);
    expectSameAsWhole(file, [[viaForeign, 'fallback.db']]);
  });
});

describe('streaming LangChain import of a big file', () => {
  /** A flat export of `traces` traces of `perTrace` runs each, newest first (as LangSmith lists runs). */
  function bigExport(traces: number, perTrace: number): string {
    const runs: LcRun[] = [];
    for (let t = 0; t < traces; t++) {
      for (let i = 0; i < perTrace; i++) {
        runs.push({ id: `t${t}-r${i}`, name: i === 0 ? 'agent' : `step-${i % 7}`, run_type: i === 0 ? 'chain' : i % 3 ? 'tool' : 'llm', start_time: 1_700_000_000_000 + t * 10_000 + i, end_time: 1_700_000_000_000 + t * 10_000 + (i === 0 ? 9_000 : i + 1), ...(i ? { parent_run_id: `t${t}-r0` } : {}), inputs: { input: `question ${t}.${i}` }, outputs: { output: `answer ${t}.${i}` } });
      }
    }
    return JSON.stringify(runs.reverse());
  }

  it('cancelling keeps the committed blocks, says what happened, and a second import finishes the runs', async () => {
    const file = write('big.json', bigExport(4, 3000));
    const db = openDatabase(path.join(dir, 'cancel.db'));
    await expectCancelledImportFinishedLater(db, file, 'langchain', importLangChainStreamingAsync, 12_000);
    expect((db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'running'").get() as { n: number }).n).toBe(0);
    db.close();
  });

  it('a newest-first export stores what the whole import stores, in one round or many', () => {
    const file = write('newest-first.json', bigExport(3, 400));
    const few: Importer = (db, fd, name, size, format, errors) => importLangChainStreaming(db, fd, name, size, format, errors, { reorderBudgetBytes: 20_000 });
    expectSameAsWhole(file, [[importLangChainStreaming, 'stream.db'], [few, 'stream-rounds.db']]);
  });

  it('the engine\'s import of a file of several MB streams it with turns and progress through both passes, with a smaller page cache and checkpoints deferred meanwhile', async () => {
    const file = write('several-mb.json', bigExport(8, 3000));
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);
    const db = openDatabase(path.join(dir, 'async.db'));
    const settings = () => `cache ${db.pragma('cache_size', { simple: true })}, autocheckpoint ${db.pragma('wal_autocheckpoint', { simple: true })}`;
    const usual = settings();
    const seen: ImportProgress[] = [];
    const during = new Set<string>();
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const result = await importFileAsync(db, file, {
      final: true,
      onProgress: (p) => {
        seen.push(p);
        during.add(settings());
      },
    });
    clearInterval(ticker);
    expect(during).toEqual(new Set(['cache -16000, autocheckpoint 16384']));
    // The page cache is back at once; the usual checkpoints come back with the checkpoint the import left owed.
    expect(settings()).toBe(usual.replace(/autocheckpoint \d+/, 'autocheckpoint 16384'));
    expect(runOwedCheckpoint(db)).toBe(true);
    expect(settings()).toBe(usual);
    expect(result.newErrors).toEqual([]);
    expect(result.runs).toHaveLength(8);
    expect(new Set(seen.map((p) => p.phase))).toEqual(new Set(['index', 'write']));
    expect(turns).toBeGreaterThan(0);
    expect((db.prepare('SELECT COUNT(*) AS n FROM steps').get() as { n: number }).n).toBe(24_000);
    db.close();
  });
});
