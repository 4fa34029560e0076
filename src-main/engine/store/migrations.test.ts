import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS } from './migrations/index';
import { migrate, openDatabase, schemaVersion, type Db } from './open-database';
import { listRuns } from './read-runs';

function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

describe('database migrations', () => {
  it('0001 creates runs, steps, user scores and import bookkeeping on an empty database', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 1));
    expect(schemaVersion(db)).toBe(1);
    expect(tables(db)).toEqual(expect.arrayContaining(['runs', 'steps', 'user_scores', 'import_files', 'import_errors']));
    expect(tables(db)).not.toContain('blame_results');
  });

  it('0002 adds the blame cache to a version-1 database and keeps its runs', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 1));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1)").run();
    migrate(db, MIGRATIONS.slice(0, 2));
    expect(schemaVersion(db)).toBe(2);
    expect(tables(db)).toContain('blame_results');
    expect(db.prepare('SELECT pipeline FROM runs').get()).toEqual({ pipeline: 'p' });
  });

  it('0005 adds failure motifs and stored explanations to a version-4 database, keeping its runs', () => {
    const db = new Database(':memory:') as Db;
    db.pragma('foreign_keys = ON');
    migrate(db, MIGRATIONS.slice(0, 4));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1)").run();
    migrate(db, MIGRATIONS.slice(0, 5));
    expect(schemaVersion(db)).toBe(5);
    expect(tables(db)).toEqual(expect.arrayContaining(['failure_motifs', 'run_explanations']));
    db.prepare("INSERT INTO failure_motifs (motif_id, origin, source_run_id, body, created_at) VALUES ('m1', 'blame', 'r1', '{}', 1)").run();
    db.prepare("DELETE FROM runs WHERE run_id = 'r1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM failure_motifs').get()).toEqual({ n: 0 });
  });

  it('0007 gives stored blame results the detector answer they hold, so the runs list can show "possibly failed"', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 6));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1), ('r2', 'p', 'ok', 1, 1, 1)").run();
    const insert = db.prepare('INSERT INTO blame_results (run_id, settings_hash, run_updated, healthy, blame_score, result, computed_at) VALUES (?, ?, 1, 1, 0, ?, 1)');
    insert.run('r1', 'h', JSON.stringify({ healthy: true, detection: { status: 'unknown' } }));
    insert.run('r2', 'h', JSON.stringify({ healthy: true }));
    migrate(db, MIGRATIONS.slice(0, 7));
    expect(schemaVersion(db)).toBe(7);
    expect(db.prepare('SELECT run_id, detection FROM blame_results ORDER BY run_id').all()).toEqual([
      { run_id: 'r1', detection: 'unknown' },
      { run_id: 'r2', detection: null },
    ]);
  });

  it('0008 adds stored step signatures to a version-7 database; they go with their run', () => {
    const db = new Database(':memory:') as Db;
    db.pragma('foreign_keys = ON');
    migrate(db, MIGRATIONS.slice(0, 7));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1)").run();
    migrate(db, MIGRATIONS.slice(0, 8));
    expect(schemaVersion(db)).toBe(8);
    db.prepare("INSERT INTO run_signatures (run_id, signature) VALUES ('r1', 'tool|search|search|{q:string}|ok')").run();
    db.prepare("INSERT INTO signed_runs (run_id, updated_at) VALUES ('r1', 1)").run();
    db.prepare("DELETE FROM runs WHERE run_id = 'r1'").run();
    expect(db.prepare('SELECT (SELECT COUNT(*) FROM run_signatures) + (SELECT COUNT(*) FROM signed_runs) AS n').get()).toEqual({ n: 0 });
  });

  it('0009 indexes runs by their source file, so an import need not scan every run', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 9));
    expect(schemaVersion(db)).toBe(9);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT run_id FROM runs WHERE source_file = 'a.jsonl' ORDER BY started_at").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX runs_by_source_file/);
  });

  it('0010 counts the steps of a version-9 database\'s runs, and its runs become searchable through the text index', () => {
    const db = new Database(':memory:') as Db;
    db.pragma('foreign_keys = ON');
    migrate(db, MIGRATIONS.slice(0, 9));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1), ('r2', 'p', 'ok', 2, 1, 1)").run();
    const step = db.prepare("INSERT INTO steps (run_id, step_id, idx, name, type, replay_key, status, output, started_at) VALUES (?, ?, 0, 'answer', 'llm', ?, 'ok', ?, 1)");
    step.run('r1', 's1', 's1', JSON.stringify({ text: 'The capital is Paris' }));
    step.run('r1', 's2', 's2', null);
    step.run('r2', 's1', 's1', JSON.stringify({ text: 'no idea' }));
    migrate(db, MIGRATIONS.slice(0, 10));
    expect(schemaVersion(db)).toBe(10);
    expect(db.prepare('SELECT run_id, version, steps FROM run_step_counts ORDER BY run_id').all()).toEqual([
      { run_id: 'r1', version: 1, steps: 2 },
      { run_id: 'r2', version: 1, steps: 1 },
    ]);
    // The index starts empty; the first search builds it.
    expect(db.prepare('SELECT COUNT(*) AS n FROM step_text_runs').get()).toEqual({ n: 0 });
    expect(listRuns(db, { search: 'capital is paris' }).map((r) => [r.run_id, r.steps])).toEqual([['r1', 2]]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM step_text_runs WHERE version = 1').get()).toEqual({ n: 2 });
  });

  it('a database written by a newer Traceback is refused with a clear message', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-mig-'));
    const file = path.join(dir, 'traces.db');
    const db = new Database(file) as Db;
    db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this Traceback understands/);
  });

  it('opens in WAL mode so readers never wait for the importer', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-mig-'));
    const db = openDatabase(path.join(dir, 'traces.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});
