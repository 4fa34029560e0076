import { describe, expect, it } from 'vitest';
import { syntheticRunRecords } from '../../../test/support/synthetic-trace';
import { openDatabase } from './open-database';
import { createRecordWriter } from './write-records';
import type { TraceRecord } from '../../../src-shared/trace-format';
import { TRACE_FORMAT_VERSION } from '../../../src-shared/trace-format';
import { getRunDetail, listRuns, LIST_RUNS_INDEXED_SQL, LIST_RUNS_SQL, resolveRunId, STEPS_OF_RUN_SQL, toolStats } from './read-runs';
import { SKELETON_SQL } from './read-run-pages';

function storeWith(...runs: ReturnType<typeof syntheticRunRecords>[]) {
  const db = openDatabase(':memory:');
  const w = createRecordWriter(db);
  db.transaction(() => runs.flat().forEach((r) => w.apply(r, '/tmp/x.jsonl')))();
  return db;
}

describe('reading runs', () => {
  it('a run id prefix finds the run, and an ambiguous prefix says which runs it matches', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'abc-1', steps: 1 }), syntheticRunRecords({ runId: 'abc-2', steps: 1 }));
    expect(resolveRunId(db, 'abc-1')).toBe('abc-1');
    expect(() => resolveRunId(db, 'abc')).toThrow(/matches several runs: abc-1, abc-2/);
    expect(() => resolveRunId(db, 'zzz')).toThrow(/no run matches "zzz"/);
  });

  it("tool failure rates leave out the run being scored, read from the store's totals or counted afresh alike", () => {
    const tool = (runId: string, step: string, name: string, status: 'ok' | 'error'): TraceRecord[] => [
      { type: 'step-start', run_id: runId, step_id: step, parent_id: null, index: 0, name, step_type: 'tool', replay_key: `${name}#${step}`, ts: 1 },
      { type: 'step-end', run_id: runId, step_id: step, ts: 2, status, ...(status === 'error' ? { error: { type: 'ToolError', message: 'boom' } } : {}) },
    ];
    const runStart = (runId: string): TraceRecord => ({ type: 'run-start', v: TRACE_FORMAT_VERSION, run_id: runId, pipeline: 'p', ts: 0 });
    const db = storeWith(
      [runStart('a'), ...tool('a', 's1', 'search', 'error'), ...tool('a', 's2', 'search', 'ok'), ...tool('a', 's3', 'only-in-a', 'error')],
      [runStart('b'), ...tool('b', 's1', 'search', 'ok'), ...tool('b', 's2', '__proto__', 'error')],
    );
    const totals = toolStats(db);
    expect(totals.search).toEqual({ calls: 3, failures: 1 });
    // Run a's own calls are not its history: "only-in-a" is gone, search counts b's call only.
    const withoutA = toolStats(db, 'a');
    expect(withoutA).toEqual({ search: { calls: 1, failures: 0 }, ['__proto__']: { calls: 1, failures: 1 } });
    expect(Object.keys(withoutA)).toEqual(expect.arrayContaining(['__proto__']));
    expect(toolStats(db, 'a', totals)).toEqual(withoutA);
    expect(toolStats(db, 'b', totals)).toEqual({ search: { calls: 2, failures: 1 }, 'only-in-a': { calls: 1, failures: 1 } });
    // The run's own calls counted from its steps already read (a refresh blames each run it read): the same.
    expect(toolStats(db, 'a', totals, getRunDetail(db, 'a').steps)).toEqual(withoutA);
    expect(toolStats(db, 'b', undefined, getRunDetail(db, 'b').steps)).toEqual(toolStats(db, 'b'));
    expect(toolStats(db, 'b', totals, getRunDetail(db, 'b').steps)).toEqual({ search: { calls: 2, failures: 1 }, 'only-in-a': { calls: 1, failures: 1 } });
  });

  it('steps come back in start order, parents before their children', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 25 }));
    const d = getRunDetail(db, 'r');
    expect(d.steps.map((s) => s.index)).toEqual([...Array(25).keys()]);
    const pos = new Map(d.steps.map((s, i) => [s.step_id, i]));
    for (const s of d.steps) if (s.parent_id) expect(pos.get(s.parent_id)!).toBeLessThan(pos.get(s.step_id)!);
  });

  it('filters failed runs and searches step content', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'ok-run', steps: 3 }), syntheticRunRecords({ runId: 'bad-run', steps: 3, failAt: 1 }));
    expect(listRuns(db, { filter: 'failed' }).map((r) => r.run_id)).toEqual(['bad-run']);
    expect(listRuns(db, { search: 'step 1 failed' }).map((r) => r.run_id)).toEqual(['bad-run']);
    expect(listRuns(db, {}).map((r) => r.steps)).toEqual([3, 3]);
  });

  it('the runs list and the steps of a run are served by indexes, not table scans', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 3 }));
    const plan = (sql: string, params: unknown) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params as never) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan(STEPS_OF_RUN_SQL, ['r'])).toMatch(/USING (INDEX steps_skeleton|PRIMARY KEY)/);
    // A run's skeleton never reads the steps table (whose rows carry the payloads) and needs no sort.
    expect(plan(SKELETON_SQL, ['r'])).toMatch(/USING COVERING INDEX steps_skeleton/);
    expect(plan(SKELETON_SQL, ['r'])).not.toMatch(/TEMP B-TREE/);
    const listPlan = plan(LIST_RUNS_SQL, { pipeline: null, search: null, filter: 'all', include_trials: 0, running_since: 0, limit: 10 });
    expect(listPlan).toMatch(/runs_by_start/);
    expect(listPlan).not.toMatch(/SCAN s\b/);
  });

  it('a search through the text index finds exactly the runs the LIKE scan finds, whatever the user types', () => {
    // Each run's text holds one kind of trouble: quotes, LIKE wildcards, FTS5 syntax, non-ASCII case, separators.
    const texts: Record<string, { name: string; input?: unknown; output?: unknown; error?: string }[]> = {
      quotes: [{ name: 'say', input: { text: 'she said "hi" and it\'s done' } }],
      wildcards: [{ name: 'pct', input: { text: '100% sure, a_b not ab' }, output: 'back\\slash' }],
      fts_syntax: [{ name: 'NEAR(alpha beta)', input: { q: 'foo AND bar OR baz NOT qux' }, output: 'pre* col:value ^start -minus (paren)' }],
      accents: [{ name: 'Café crème', input: { text: 'naïve façade CAFÉ' } }],
      wide: [{ name: '日本語テキスト', output: { text: '🙂🙃 emoji and Ωmega' } }],
      kelvin: [{ name: 'temperature', output: { unit: '300 \u212A' } }],
      fields: [{ name: 'alpha', input: 'omega' }, { name: 'gamma', error: 'boom went the step' }],
      control: [{ name: 'sep\u0001arated name', input: { text: 'line\nbreak\ttab' } }],
    };
    const records: TraceRecord[] = [];
    for (const [runId, steps] of Object.entries(texts)) {
      records.push({ type: 'run-start', v: TRACE_FORMAT_VERSION, run_id: runId, pipeline: 'p', ts: 1 });
      steps.forEach((s, i) => {
        records.push({ type: 'step-start', run_id: runId, step_id: `s${i}`, index: i, name: s.name, ts: 2 + i, input: s.input } as TraceRecord);
        records.push({ type: 'step-end', run_id: runId, step_id: `s${i}`, ts: 3 + i, status: s.error ? 'error' : 'ok', output: s.output, ...(s.error ? { error: { type: 'Error', message: s.error } } : {}) } as TraceRecord);
      });
    }
    const db = openDatabase(':memory:');
    const w = createRecordWriter(db, () => 10);
    db.transaction(() => w.applyBatch(records, null))();
    const queries = [
      '"hi"', '"', '""', "it's", "'", '100%', '%', '_', 'a_b', 'a%b', '_b n', 'back\\slash', '\\',
      'NEAR', 'NEAR(alpha beta)', 'foo AND bar', 'AND', 'OR baz', 'NOT qux', 'pre*', '*', 'col:value', '^start', '-minus', '(paren)',
      'Café', 'café', 'CAFÉ', 'É', 'crème', 'CRÈME', 'naï', 'NAÏVE', 'faç',
      '日本', '日本語', 'テキスト', '🙂', '🙂🙃', 'ωmega', 'Ωmega', 'ΩMEGA',
      '300 k', '300 \u212A', 'K', 'kel',
      'alpha', 'alphaomega', 'alpha\u0001', 'omega"', 'went the', 'BOOM', 'step', 'gamma boom',
      'sep\u0001arated', 'line\\nbreak', 'line\nbreak', '\\t', 'no run holds this text', 'p', 'qu',
    ];
    const viaScan = (text: string) =>
      (db.prepare(LIST_RUNS_SQL).all({
        pipeline: null, include_trials: 0, filter: 'all', running_since: 0, limit: 10_000,
        search: `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      }) as { run_id: string }[]).map((r) => r.run_id).sort();
    const found: Record<string, string[]> = {};
    for (const q of queries) {
      const got = listRuns(db, { search: q }).map((r) => r.run_id).sort();
      expect(got, `search ${JSON.stringify(q)}`).toEqual(viaScan(q));
      found[q] = got;
    }
    // The index was used (every run has a document) and the comparison is not between two empty lists.
    expect(db.prepare('SELECT COUNT(*) AS n FROM step_text_runs WHERE version > 0').get()).toEqual({ n: Object.keys(texts).length });
    expect(found['NEAR(alpha beta)']).toEqual(['fts_syntax']);
    expect(found['a_b']).toEqual(['wildcards']);
    expect(found['café']).toEqual(['accents']);
    expect(found['CAFÉ']).toEqual(['accents']);
    expect(found['alphaomega']).toEqual([]);
    expect(found['Ωmega']).toEqual(['wide']);
    expect(found['ΩMEGA']).toEqual(['wide']);
    expect(found['ωmega']).toEqual([]);
    expect(found['300 k']).toEqual([]);
  });

  it('the runs list and a search through the text index are served by indexes', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 3 }));
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${LIST_RUNS_INDEXED_SQL}`).all({ match: '"step"', plain: 1, pipeline: null, search: '%step%', filter: 'all', include_trials: 0, running_since: 0, limit: 10 }) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toMatch(/SCAN step_text VIRTUAL TABLE INDEX/);
    expect(plan).toMatch(/runs_by_start/);
  });
});
