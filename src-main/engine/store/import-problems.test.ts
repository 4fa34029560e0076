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

describe('import problems reach the runs they concern', () => {
  it('a native file with one bad line: its run lists the problem with file and line, and the runs list counts it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-probs-'));
    const file = path.join(dir, 'run.jsonl');
    const lines = syntheticRunRecords({ runId: 'bad-line-run', steps: 2 }).map((r) => JSON.stringify(r));
    lines.splice(2, 0, '{"type": "step-start", oops');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const db = openDatabase(':memory:');
    importFile(db, file);
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
