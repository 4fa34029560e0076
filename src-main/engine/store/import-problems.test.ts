import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticRunRecords } from '../../../test/support/synthetic-trace';
import { importFile } from '../ingest/import-file';
import { importProblemsOfRun, insertImportErrors } from './import-files';
import { openDatabase } from './open-database';
import { listRuns } from './read-runs';
import { createRecordWriter } from './write-records';

/** Imports a native run of `steps` steps whose third line is `badLine`, into a new database. */
function importWithBadLine(runId: string, steps: number, badLine: string) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tb-probs-')), 'run.jsonl');
  const lines = syntheticRunRecords({ runId, steps }).map((r) => JSON.stringify(r));
  lines.splice(2, 0, badLine);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const db = openDatabase(':memory:');
  return { db, file, result: importFile(db, file) };
}

describe('import problems reach the runs they concern', () => {
  it('a native file with one bad line: its run lists the problem with file and line, and the runs list counts it', () => {
    const { db, file } = importWithBadLine('bad-line-run', 2, '{"type": "step-start", oops');
    const problems = importProblemsOfRun(db, 'bad-line-run');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file, line: 3, level: 'error' });
    expect(listRuns(db).find((r) => r.run_id === 'bad-line-run')?.import_problems).toEqual({ errors: 1, warnings: 0 });
  });

  it('in a file of several runs, a problem naming one run ("run ID: …") is attached to that run only; an unnamed one to all', () => {
    const db = openDatabase(':memory:');
    const file = '/imports/two-traces.json';
    const w = createRecordWriter(db);
    db.transaction(() => {
      for (const r of [...syntheticRunRecords({ runId: 'trace-a', steps: 1 }), ...syntheticRunRecords({ runId: 'trace-ab', steps: 1 })]) w.apply(r, file);
      insertImportErrors(db, [
        { file, line: 1, level: 'warning', message: 'run trace-ab: step "llm" received error text that no recorded step produced, so a failing call left no trace: "timeout"' },
        { file, line: 1, level: 'error', message: 'unexpected end of JSON input' },
      ]);
    })();
    // "trace-a" is a prefix of "trace-ab": the problem about trace-ab must not leak onto trace-a.
    expect(importProblemsOfRun(db, 'trace-a').map((p) => p.message)).toEqual(['unexpected end of JSON input']);
    expect(importProblemsOfRun(db, 'trace-ab')).toHaveLength(2);
    const counts = Object.fromEntries(listRuns(db).map((r) => [r.run_id, r.import_problems]));
    expect(counts).toEqual({ 'trace-a': { errors: 1, warnings: 0 }, 'trace-ab': { errors: 1, warnings: 1 } });
  });
});

describe('a run whose id holds an invisible character', () => {
  it('keeps the problems that name it, though the stored message names that character by its code', () => {
    const db = openDatabase(':memory:');
    const file = '/imports/zwj.json';
    const runId = 'team-\u{1F469}\u200D\u{1F4BB}';
    const w = createRecordWriter(db);
    db.transaction(() => {
      for (const r of [...syntheticRunRecords({ runId, steps: 1 }), ...syntheticRunRecords({ runId: 'team-plain', steps: 1 })]) w.apply(r, file);
      insertImportErrors(db, [{ file, line: 4, level: 'warning', message: `run ${runId}: 1 step(s) name parent 22, which is not in the file` }]);
    })();
    expect(importProblemsOfRun(db, runId).map((p) => p.message)).toEqual([expect.stringContaining('[U+200D]')]);
    expect(importProblemsOfRun(db, 'team-plain')).toEqual([]);
    const counts = Object.fromEntries(listRuns(db).map((r) => [r.run_id, r.import_problems]));
    expect(counts).toEqual({ [runId]: { errors: 0, warnings: 1 }, 'team-plain': { errors: 0, warnings: 0 } });
  });
});

describe('import problems never store a character that acts instead of showing', () => {
  it('a bad line holding ESC and U+202E is stored, and returned, with each named by its code', () => {
    // V8's JSON error quotes the line it could not parse.
    const { db, result } = importWithBadLine('hostile-line-run', 1, '{"type": "step-start\u001b[31m\u202eevil\u0085');
    const stored = importProblemsOfRun(db, 'hostile-line-run');
    expect(stored).toHaveLength(1);
    expect(stored[0].line).toBe(3);
    expect(stored[0].message).toContain('step-start[U+001B][31m[U+202E]evil');
    expect(result.newErrors.map((e) => e.message)).toEqual([stored[0].message]);
    for (const message of [stored[0].message, result.newErrors[0].message]) expect(message).not.toMatch(/[\p{Cc}\u202a-\u202e\u2066-\u2069\u200e\u200f]/u);
  });
});
