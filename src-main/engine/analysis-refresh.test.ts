import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { homePaths } from './home';
import { openDatabase, type Db } from './store/open-database';
import { importFile } from './ingest/import-file';
import { createAnalysis } from './analysis-service';
import { createEngine, type Engine } from './create-engine';
import { signaturesOf } from './blame/spectrum';
import { getRunDetail } from './store/read-runs';
import { syntheticRunRecords, toJsonl } from '../../test/support/synthetic-trace';

let dir: string;
const opened: Db[] = [];

/** A store of `runs` small runs over three pipelines, a tool failing in every fifth, with a verdict on half. */
function storeOfRuns(name: string, runs: number): { db: Db; ids: string[] } {
  const file = path.join(dir, `${name}.jsonl`);
  const ids = Array.from({ length: runs }, (_, i) => `run-${String(i).padStart(4, '0')}`);
  const records = ids.flatMap((runId, i) => {
    const recs = syntheticRunRecords({ runId, steps: 6, pipeline: `pipeline-${i % 3}`, failAt: i % 5 === 0 ? 2 : undefined, startTs: 1_700_000_000_000 + i * 1000 });
    return i % 2 ? [...recs, { type: 'verdict' as const, run_id: runId, pass: i % 5 !== 0, ts: 1_700_000_000_000 + i * 1000 + 900 }] : recs;
  });
  fs.writeFileSync(file, toJsonl(records));
  const db = openDatabase(path.join(dir, `${name}.db`));
  opened.push(db);
  importFile(db, file, { final: true });
  return { db, ids };
}

const storedResults = (db: Db) => db.prepare('SELECT run_id, healthy, blame_score, result FROM blame_results ORDER BY run_id').all();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-refresh-'));
});

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('storing the blame of many imported runs', () => {
  it('stores for each run what blaming it alone stores (the tool counts read once, each run\'s own left out)', () => {
    const batched = storeOfRuns('batched', 450);
    createAnalysis(batched.db, homePaths(dir)).refresh(batched.ids);
    const alone = storeOfRuns('alone', 450);
    const analysis = createAnalysis(alone.db, homePaths(dir));
    for (const id of alone.ids) analysis.blame(id);
    const results = storedResults(batched.db);
    expect(results).toHaveLength(450);
    expect(results).toEqual(storedResults(alone.db));
    // The runs with a failing tool are blamed, the others are not all healthy for nothing: the comparison covers both.
    expect(new Set(results.map((r) => (r as { healthy: number }).healthy))).toEqual(new Set([0, 1]));
  });

  it('in turns: other work runs between its batches, and every run is stored when it resolves', async () => {
    const { db, ids } = storeOfRuns('turns', 450);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await createAnalysis(db, homePaths(dir)).refreshInTurns(ids);
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(storedResults(db)).toHaveLength(450);
  });
});

describe('runs too large to blame unasked', () => {
  // An engine whose budget is 6 steps, so that the runs of these tests stay small.
  let engine: Engine;
  beforeEach(() => {
    engine = createEngine({ home: path.join(dir, 'home'), analysis: { autoBlameMaxSteps: 6 } });
  });
  afterEach(() => engine.close());

  it('an import blames the runs within the budget, names the larger ones, and a larger one is blamed when asked', async () => {
    const file = path.join(dir, 'two.jsonl');
    fs.writeFileSync(file, toJsonl([...syntheticRunRecords({ runId: 'small', steps: 6, failAt: 2 }), ...syntheticRunRecords({ runId: 'large', steps: 7, failAt: 2 })]));
    const report = await engine.handlers.importPaths({ paths: [file] });
    expect(report.blame_deferred).toEqual([{ run_id: 'large', steps: 7 }]);
    const listed = async (id: string) => (await engine.handlers.listRuns({})).find((r) => r.run_id === id)!;
    expect((await listed('small')).blame_score).toBeGreaterThan(0);
    // Not blamed: the list says so (no score), rather than calling it healthy.
    expect((await listed('large')).blame_score).toBeNull();
    expect((await listed('large')).healthy).toBeNull();
    const asked = engine.analysis.blame('large');
    expect(asked.healthy).toBe(false);
    expect((await listed('large')).blame_score).toBe(asked.blamed[0].score);
  });

  it('a run that grows past the limit loses the blame of its smaller self; a blame asked for at its size stays', async () => {
    const file = path.join(dir, 'grows.jsonl');
    const all = syntheticRunRecords({ runId: 'grows', steps: 9, failAt: 7 });
    const isStep = (r: (typeof all)[number]) => r.type === 'step-start' || r.type === 'step-end';
    const early = all.filter((r) => !isStep(r) || Number((r as { step_id: string }).step_id.replace(/\D/g, '')) < 4);
    fs.writeFileSync(file, toJsonl(early));
    const listed = async () => (await engine.handlers.listRuns({})).find((r) => r.run_id === 'grows')!;
    expect((await engine.handlers.importPaths({ paths: [file] })).blame_deferred).toEqual([]);
    expect((await listed()).healthy).not.toBeNull();
    // The trace goes on: the rest of its steps are appended, and the run is over the limit now.
    fs.appendFileSync(file, toJsonl(all.filter((r) => isStep(r) && !early.includes(r))));
    expect((await engine.handlers.importPaths({ paths: [file] })).blame_deferred).toEqual([{ run_id: 'grows', steps: 9 }]);
    expect((await listed()).steps).toBe(9);
    expect((await listed()).healthy).toBeNull();
    expect((await listed()).blame_score).toBeNull();
    // Asked for at this size, its blame is stored, and a refresh of the same version leaves it.
    const asked = engine.analysis.blame('grows');
    expect(asked.healthy).toBe(false);
    expect(engine.analysis.refresh(['grows'])).toEqual([]);
    expect((await listed()).blame_score).toBe(asked.blamed[0].score);
  });

  it('such a run in its pipeline\'s history is signed a step at a time, with the signatures a whole read gives', async () => {
    const file = path.join(dir, 'history.jsonl');
    const verdict = (runId: string, pass: boolean, ts: number) => ({ type: 'verdict' as const, run_id: runId, pass, ts });
    fs.writeFileSync(
      file,
      toJsonl([
        ...syntheticRunRecords({ runId: 'big-history', steps: 9, pipeline: 'p', failAt: 4, startTs: 1_700_000_000_000 }),
        verdict('big-history', false, 1_700_000_000_900),
        ...syntheticRunRecords({ runId: 'small-next', steps: 5, pipeline: 'p', failAt: 4, startTs: 1_700_000_010_000 }),
        verdict('small-next', false, 1_700_000_010_900),
      ]),
    );
    const report = await engine.handlers.importPaths({ paths: [file] });
    expect(report.blame_deferred).toEqual([{ run_id: 'big-history', steps: 9 }]);
    // The small run's blame signed its history, the large run among it, without blaming that run.
    const stored = engine.db.prepare('SELECT signature FROM run_signatures WHERE run_id = ? ORDER BY signature').pluck().all('big-history');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored).toEqual([...signaturesOf(getRunDetail(engine.db, 'big-history').steps)].sort());
    expect(engine.db.prepare("SELECT COUNT(*) FROM blame_results WHERE run_id = 'big-history'").pluck().get()).toBe(0);
  });
});
