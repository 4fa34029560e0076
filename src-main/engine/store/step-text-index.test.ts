import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TRACE_FORMAT_VERSION, type TraceRecord } from '../../../src-shared/trace-format';
import { syntheticRunRecords } from '../../../test/support/synthetic-trace';
import { openDatabase, type Db } from './open-database';
import { createRecordWriter, touchRuns } from './write-records';
import { listRuns, LIST_RUNS_SQL } from './read-runs';
import { catchUpStepText, stepTextQuery, CHANGED_RUNS_SQL as TEXT_CHANGED_SQL } from './step-text-index';
import { migrate } from './open-database';
import { MIGRATIONS } from './migrations/index';
import { CHANGED_RUNS_SQL as COUNTS_CHANGED_SQL } from './step-counts';

function storeWith(...runs: TraceRecord[][]): Db {
  const db = openDatabase(':memory:');
  write(db, runs.flat());
  return db;
}

/** Writes records as an import does: the records, then the runs they touched stamped with the time. */
function write(db: Db, records: TraceRecord[], at = Date.now()): void {
  const w = createRecordWriter(db, () => at);
  db.transaction(() => {
    w.applyBatch(records, null);
    touchRuns(db, w.touchedRuns(), at);
  })();
}

const search = (db: Db, text: string) => listRuns(db, { search: text }).map((r) => r.run_id).sort();
const indexedDocs = (db: Db, text: string) =>
  (db.prepare('SELECT rowid FROM step_text WHERE step_text MATCH ?').all(`"${text}"`) as { rowid: number }[]).length;

describe('the step text index', () => {
  it('a step imported again with other output is found by its new text only', () => {
    const db = storeWith();
    write(db, [...syntheticRunRecords({ runId: 'a', steps: 3 }), ...syntheticRunRecords({ runId: 'b', steps: 3 })], Date.now() - 1000);
    expect(search(db, 'output of step 2')).toEqual(['a', 'b']);
    write(db, [{ type: 'step-end', run_id: 'a', step_id: 's2', ts: 9, status: 'ok', output: { text: 'a rewritten answer' } }]);
    expect(search(db, 'rewritten answer')).toEqual(['a']);
    expect(search(db, 'output of step 2')).toEqual(['b']);
    // The index itself was brought up to date, not only bypassed.
    expect(indexedDocs(db, 'rewritten answer')).toBe(1);
    expect(indexedDocs(db, 'output of step 2')).toBe(1);
  });

  it('a forgotten run leaves no hit and no document behind', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'gone', steps: 2 }), syntheticRunRecords({ runId: 'kept', steps: 2, pipeline: 'other' }));
    catchUpStepText(db, { now: () => Date.now() + 1000 });
    expect(indexedDocs(db, 'input of step 1')).toBe(2);
    db.prepare("DELETE FROM runs WHERE run_id = 'gone'").run();
    expect(search(db, 'input of step 1')).toEqual(['kept']);
    expect(indexedDocs(db, 'input of step 1')).toBe(1);
    expect(db.prepare('SELECT run_id FROM step_text_runs').all()).toEqual([{ run_id: 'kept' }]);
  });

  it('a big run is indexed in several documents, and text from its first and last steps is found', () => {
    const db = storeWith();
    const long = (word: string) => `${word} ${'x'.repeat(900_000)}`;
    const records: TraceRecord[] = syntheticRunRecords({ runId: 'big', steps: 6 }).map((r) =>
      r.type === 'step-end' ? { ...r, output: { text: long(`word-of-${r.step_id}`) } } : r,
    );
    write(db, records, Date.now() - 1000);
    expect(search(db, 'WORD-OF-S0')).toEqual(['big']);
    expect(search(db, 'word-of-s5')).toEqual(['big']);
    expect((db.prepare("SELECT COUNT(*) AS n FROM step_text_runs WHERE run_id = 'big'").get() as { n: number }).n).toBe(2);
    // Indexed again after a change, the run's old documents leave the index.
    write(db, [{ type: 'step-end', run_id: 'big', step_id: 's5', ts: 9, status: 'ok', output: 'short now' }], Date.now() - 500);
    expect(search(db, 'word-of-s5')).toEqual([]);
    expect(search(db, 'short now')).toEqual(['big']);
    expect(indexedDocs(db, 'word-of-s0')).toBe(1);
    expect(indexedDocs(db, 'word-of-s5')).toBe(0);
  });

  it('a run of more steps than one read holds is indexed whole', () => {
    const db = storeWith();
    write(db, syntheticRunRecords({ runId: 'long', steps: 2_500 }), Date.now() - 1000);
    expect(catchUpStepText(db)).toMatchObject({ runs: 1, steps: 2_500 });
    expect(indexedDocs(db, 'output of step 2499')).toBe(1);
    expect(indexedDocs(db, 'input of step 0')).toBe(1);
  });

  it('a catch-up out of time leaves the other runs for later, and a search still finds them', () => {
    const t = Date.now() - 10_000;
    const db = openDatabase(':memory:');
    for (let i = 0; i < 5; i++) write(db, syntheticRunRecords({ runId: `r${i}`, steps: 4 }), t + i);
    expect(catchUpStepText(db, { budgetMs: 0 })).toMatchObject({ runs: 1, steps: 4, complete: false });
    expect(db.prepare('SELECT run_id FROM step_text_runs').all()).toEqual([{ run_id: 'r0' }]);
    // A search indexes what its own budget allows and scans the rest: every run is found either way.
    expect(search(db, 'input of step 3')).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(catchUpStepText(db)).toEqual({ runs: 0, steps: 0, complete: true });
  });

  it('a run changed in the millisecond it was indexed is indexed again, though its stamp did not move', () => {
    const at = Date.now() - 5_000;
    const db = storeWith();
    write(db, syntheticRunRecords({ runId: 'r', steps: 2 }), at);
    catchUpStepText(db, { now: () => at });
    // Same millisecond: updated_at stays `at`.
    write(db, [{ type: 'step-end', run_id: 'r', step_id: 's1', ts: 9, status: 'ok', output: { text: 'late words' } }], at);
    expect(catchUpStepText(db, { now: () => at + 1 })).toMatchObject({ runs: 1 });
    expect(indexedDocs(db, 'late words')).toBe(1);
  });

  it('a run another process stamped before the last catch-up but committed after it is still indexed', () => {
    const now = Date.now();
    const db = storeWith();
    write(db, syntheticRunRecords({ runId: 'seen', steps: 1 }), now - 5_000);
    catchUpStepText(db, { now: () => now });
    write(db, syntheticRunRecords({ runId: 'late-commit', steps: 1, pipeline: 'other' }), now - 8_000);
    expect(catchUpStepText(db, { now: () => now + 1 })).toMatchObject({ runs: 1 });
    expect(indexedDocs(db, 'input of step 0')).toBe(2);
  });

  it('after the clock was set back, runs changed at the earlier time are still indexed', () => {
    const db = storeWith();
    const now = Date.now();
    write(db, syntheticRunRecords({ runId: 'future', steps: 1 }), now + 60_000);
    catchUpStepText(db, { now: () => now + 120_000 });
    write(db, syntheticRunRecords({ runId: 'past', steps: 1 }), now - 60_000);
    expect(catchUpStepText(db, { now: () => now })).toMatchObject({ runs: 1 });
    expect(indexedDocs(db, 'input of step 0')).toBe(2);
  });
});

/** What a search finds by scanning every step with LIKE: the meaning the index must keep. */
const scanned = (db: Db, text: string) =>
  (
    db.prepare(LIST_RUNS_SQL).all({
      pipeline: null,
      search: `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      filter: 'all',
      include_trials: 0,
      running_since: 0,
      limit: 10_000,
    }) as { run_id: string }[]
  )
    .map((r) => r.run_id)
    .sort();

/** A run of one step with these fields (null: not recorded). */
function oneStep(runId: string, name: string, input: unknown, output: unknown): TraceRecord[] {
  return [
    { type: 'run-start', v: TRACE_FORMAT_VERSION, run_id: runId, pipeline: 'p', ts: 1 },
    { type: 'step-start', run_id: runId, step_id: 's0', name, step_type: 'tool', ts: 1, ...(input === null ? {} : { input }) } as TraceRecord,
    { type: 'step-end', run_id: runId, step_id: 's0', ts: 2, status: 'ok', ...(output === null ? {} : { output }) } as TraceRecord,
  ];
}

describe('searches of one or two characters', () => {
  const db = storeWith();
  write(
    db,
    [
      // The query is the whole document: no trigram holds it but the document's ending.
      ...oneStep('whole', 'Zq', null, null),
      // At the very end of the last field.
      ...oneStep('tail', 'fetch', { q: 'a' }, 'ends in jx'),
      ...oneStep('marks', 'parse', 'x%_y and a "b', null),
      // A field ends in "k" and the next starts with "{": "k{" is in no one field.
      ...oneStep('fields', 'walk', { n: 1 }, null),
      ...oneStep('accent', 'café', null, 'Ünïcode'),
      ...oneStep('cjk', '検索', null, '日本語の答え'),
    ],
    Date.now() - 1000,
  );

  it('find what a scan of every step finds, through the index', () => {
    for (const q of ['zq', 'ZQ', 'z', 'jx', 'x', '%_', '_y', '"b', 'k{', 'lk', 'é', 'Ü', 'ë', 'qq', '0', '}', ' a', 'a ', '日本', '語', '答え', '本x', '索']) {
      expect(search(db, q), `search ${JSON.stringify(q)}`).toEqual(scanned(db, q));
    }
    expect(search(db, 'zq')).toEqual(['whole']);
    expect(search(db, 'jx')).toEqual(['tail']);
    expect(search(db, 'k{')).toEqual([]);
    // Every run was indexed by the first search, and plain short queries are answered from its terms.
    expect(search(db, '語')).toEqual(['cjk']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 6 });
    expect(stepTextQuery(db, 'qq')).toEqual({ match: null, plain: true });
    expect(stepTextQuery(db, 'jx')?.match).toContain('"jx');
    expect(stepTextQuery(db, '日本')).toMatchObject({ plain: false });
    // Cased letters beyond A–Z are still scanned.
    expect(stepTextQuery(db, 'é')).toBeNull();
  });

  it('a store indexed before migration 0011 is indexed again, with the ending short queries need', () => {
    const old = openDatabase(':memory:', { migrations: MIGRATIONS.slice(0, 10) });
    write(old, oneStep('whole', 'Zq', null, null), Date.now() - 1000);
    catchUpStepText(old);
    expect(old.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 1 });
    migrate(old, MIGRATIONS);
    expect(old.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 0 });
    expect(listRuns(old, { search: 'zq' }).map((r) => r.run_id)).toEqual(['whole']);
    expect(stepTextQuery(old, 'zq')?.match).toBe('"zq\u0001"');
  });
});

describe('stored step counts', () => {
  it('the runs list counts steps added by a later import, and forgets a forgotten run', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'a', steps: 3 }), syntheticRunRecords({ runId: 'b', steps: 5, startTs: 1_800_000_000_000 }));
    expect(listRuns(db).map((r) => [r.run_id, r.steps])).toEqual([['b', 5], ['a', 3]]);
    write(db, [{ type: 'step-start', run_id: 'a', step_id: 'extra', name: 'late', ts: 5 } as TraceRecord], Date.now() + 1);
    expect(listRuns(db).map((r) => [r.run_id, r.steps])).toEqual([['b', 5], ['a', 4]]);
    expect(db.prepare("SELECT steps FROM run_step_counts WHERE run_id = 'a'").get()).toEqual({ steps: 4 });
    db.prepare("DELETE FROM runs WHERE run_id = 'a'").run();
    expect(db.prepare('SELECT run_id FROM run_step_counts').all()).toEqual([{ run_id: 'b' }]);
  });
});

describe('catch-ups', () => {
  it('find the runs changed since their mark through runs_by_update, not by reading every run', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 1 }));
    for (const sql of [TEXT_CHANGED_SQL, COUNTS_CHANGED_SQL]) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0) as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/SEARCH r USING INDEX runs_by_update/);
    }
  });
});

describe('while another process writes', () => {
  it('the runs list neither waits for the write lock nor fails, and still finds what the index has not caught up with', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tb-busy-')), 'traces.db');
    const app = openDatabase(file);
    write(app, syntheticRunRecords({ runId: 'old', steps: 2 }), Date.now() - 5_000);
    const other = openDatabase(file);
    write(other, syntheticRunRecords({ runId: 'new', steps: 3, startTs: 1_800_000_000_000 }), Date.now() - 4_000);
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const t = performance.now();
      expect(listRuns(app, { search: 'input of step 1' }).map((r) => [r.run_id, r.steps])).toEqual([['new', 3], ['old', 2]]);
      expect(performance.now() - t).toBeLessThan(2_000);
      expect(app.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 0 });
    } finally {
      other.prepare('ROLLBACK').run();
    }
    // Once the other writer is done, the next list catches up, with the connection's own busy timeout intact.
    expect(listRuns(app, { search: 'input of step 1' })).toHaveLength(2);
    expect(app.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 2 });
    expect(app.pragma('busy_timeout', { simple: true })).toBe(5000);
    other.close();
    app.close();
  });
  it('a run changed since it was indexed is not found by its old text, though its old document still holds it', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tb-stale-')), 'traces.db');
    const app = openDatabase(file);
    write(app, [...syntheticRunRecords({ runId: 'changed', steps: 3 }), ...syntheticRunRecords({ runId: 'same', steps: 3 })], Date.now() - 5_000);
    expect(search(app, 'output of step 2')).toEqual(['changed', 'same']);
    const other = openDatabase(file);
    write(other, [{ type: 'step-end', run_id: 'changed', step_id: 's2', ts: 9, status: 'ok', output: { text: 'a rewritten answer' } }], Date.now() - 4_000);
    // The other process keeps the write lock: the list cannot index the change, and reads the stale document's hit.
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      expect(indexedDocs(app, 'output of step 2')).toBe(2);
      expect(search(app, 'output of step 2')).toEqual(['same']);
      expect(search(app, 'rewritten answer')).toEqual(['changed']);
    } finally {
      other.prepare('ROLLBACK').run();
    }
    other.close();
    app.close();
  });
});
