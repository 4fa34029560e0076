import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index';
import { migrate, type Db } from './open-database';

describe('migration 0006 (trial diagnostics)', () => {
  it('keeps the trials of an existing database and leaves their log, stderr and edit-applied unknown', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 5));
    db.prepare(
      `INSERT INTO experiments (experiment_id, source_run_id, pipeline, fork_step_key, fork_step_name, edit, oracle, n_per_arm, parallel, timeout_ms, status, created_at)
       VALUES ('exp-1', 'r1', 'p', 'a#0', 'a', '{}', '{}', 1, 1, 1000, 'done', 1)`,
    ).run();
    db.prepare(`INSERT INTO trials (experiment_id, arm, trial, run_id, outcome) VALUES ('exp-1', 'control', 1, 'exp-1-c1', 'crashed')`).run();
    migrate(db, MIGRATIONS.slice(0, 6));
    expect(db.prepare('SELECT outcome, log_file, stderr_tail, edit_applied FROM trials').get()).toEqual({
      outcome: 'crashed',
      log_file: null,
      stderr_tail: null,
      edit_applied: null,
    });
  });
});
