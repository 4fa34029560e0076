/**
 * 0001: runs, steps, user scores, import bookkeeping.
 * JSON-valued columns hold JSON text; NULL means "absent", not JSON null.
 */
export const migration0001 = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE runs (
  run_id        TEXT PRIMARY KEY,
  pipeline      TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('running','incomplete','ok','error')),
  started_at    REAL NOT NULL,
  ended_at      REAL,
  input         TEXT,
  output        TEXT,
  error         TEXT,
  verdict       TEXT,
  tags          TEXT,
  entry         TEXT,
  provenance    TEXT,
  sdk           TEXT,
  source_file   TEXT,
  source_format TEXT NOT NULL DEFAULT 'native',
  extra         TEXT,
  imported_at   REAL NOT NULL,
  updated_at    REAL NOT NULL
);
CREATE INDEX runs_by_start ON runs (started_at DESC);
CREATE INDEX runs_by_pipeline ON runs (pipeline, started_at DESC);

CREATE TABLE steps (
  run_id      TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  step_id     TEXT NOT NULL,
  parent_id   TEXT,
  idx         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL,
  replay_key  TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running','ok','error')),
  input       TEXT,
  output      TEXT,
  error       TEXT,
  started_at  REAL NOT NULL,
  ended_at    REAL,
  model       TEXT,
  usage       TEXT,
  metadata    TEXT,
  replayed    INTEGER NOT NULL DEFAULT 0,
  extra       TEXT,
  PRIMARY KEY (run_id, step_id)
) WITHOUT ROWID;
CREATE INDEX steps_in_order ON steps (run_id, idx);

CREATE TABLE user_scores (
  run_id      TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  step_id     TEXT NOT NULL DEFAULT '',
  name        TEXT NOT NULL,
  value       REAL NOT NULL,
  explanation TEXT,
  PRIMARY KEY (run_id, step_id, name)
) WITHOUT ROWID;

-- Where each file has been read to. Updated in the same transaction as the
-- rows read from it, so a crash never loses committed records nor re-reads them.
CREATE TABLE import_files (
  path        TEXT PRIMARY KEY,
  offset      INTEGER NOT NULL DEFAULT 0,
  line        INTEGER NOT NULL DEFAULT 0,
  size        INTEGER NOT NULL DEFAULT 0,
  format      TEXT NOT NULL DEFAULT 'native',
  refused     TEXT,
  updated_at  REAL NOT NULL
);

CREATE TABLE import_errors (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL,
  line        INTEGER NOT NULL,
  level       TEXT NOT NULL CHECK (level IN ('error','warning')),
  message     TEXT NOT NULL,
  created_at  REAL NOT NULL,
  UNIQUE (path, line, message)
);
`,
};
