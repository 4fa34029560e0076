/**
 * 0003: fork experiments, their trials, and the user's approvals of entry
 * commands found in trace files. An experiment keeps the pid of the process
 * running it and (in `options`) a token of the engine instance within it, so a restart can
 * tell its own dead experiments (interrupted) from ones another live process
 * (the CLI, `tb serve`) is still running — and a restarted engine worker
 * from the worker that died inside the same process.
 */
export const migration0003 = {
  version: 3,
  name: 'experiments',
  sql: `
CREATE TABLE experiments (
  experiment_id  TEXT PRIMARY KEY,
  source_run_id  TEXT NOT NULL,
  pipeline       TEXT NOT NULL,
  fork_step_key  TEXT NOT NULL,
  fork_step_name TEXT NOT NULL,
  edit           TEXT NOT NULL,
  oracle         TEXT NOT NULL,
  n_per_arm      INTEGER NOT NULL,
  parallel       INTEGER NOT NULL,
  timeout_ms     INTEGER NOT NULL,
  options        TEXT,
  label          TEXT,
  group_id       TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running','done','cancelled','interrupted','error')),
  stop_reason    TEXT,
  estimate       TEXT,
  runner_pid     INTEGER,
  created_at     REAL NOT NULL,
  ended_at       REAL
);
CREATE INDEX experiments_by_start ON experiments (created_at DESC);
CREATE INDEX experiments_by_run ON experiments (source_run_id, created_at DESC);

CREATE TABLE trials (
  experiment_id  TEXT NOT NULL REFERENCES experiments(experiment_id) ON DELETE CASCADE,
  arm            TEXT NOT NULL CHECK (arm IN ('treatment','control')),
  trial          INTEGER NOT NULL,
  run_id         TEXT NOT NULL,
  outcome        TEXT NOT NULL CHECK (outcome IN ('pending','running','pass','fail','crashed','timeout','diverged','skipped','cancelled','interrupted')),
  detail         TEXT,
  started_at     REAL,
  ended_at       REAL,
  duration_ms    REAL,
  tokens         INTEGER NOT NULL DEFAULT 0,
  cost_usd       REAL NOT NULL DEFAULT 0,
  calls          INTEGER NOT NULL DEFAULT 0,
  replayed_steps INTEGER NOT NULL DEFAULT 0,
  saved_calls    INTEGER NOT NULL DEFAULT 0,
  saved_tokens   INTEGER NOT NULL DEFAULT 0,
  exit_code      INTEGER,
  PRIMARY KEY (experiment_id, arm, trial)
) WITHOUT ROWID;
CREATE INDEX trials_by_run ON trials (run_id);

CREATE TABLE command_approvals (
  pipeline     TEXT NOT NULL,
  command_hash TEXT NOT NULL,
  command      TEXT NOT NULL,
  approved_at  REAL NOT NULL,
  PRIMARY KEY (pipeline, command_hash)
) WITHOUT ROWID;
`,
};
