import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './open-database';
import { importFile } from '../ingest/import-file';
import { createSkeletonCache } from './skeleton-cache';
import { getRunSkeleton } from './read-run-pages';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';

describe('the skeleton cache', () => {
  it('gives the same skeleton again while the run is unchanged, and a fresh one once it changed', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-skel-cache-'));
    const db = openDatabase(path.join(dir, 'traces.db'));
    const file = path.join(dir, 'run.jsonl');
    const records = syntheticRunRecords({ runId: 'r', steps: 30 });
    const runEnd = records.pop()!;
    fs.writeFileSync(file, toJsonl(records));
    importFile(db, file, { final: false });
    const cache = createSkeletonCache(db);
    const first = cache.get('r');
    // A run without its end record is running: its status depends on the clock, so it is read again.
    expect(cache.get('r')).not.toBe(first);
    fs.appendFileSync(file, toJsonl([runEnd]));
    importFile(db, file, { final: true });
    const ended = cache.get('r');
    expect(cache.get('r')).toBe(ended);
    expect(ended).toEqual(getRunSkeleton(db, 'r'));
    // A change to the run (here a user score appended to its file) is seen at once.
    fs.appendFileSync(file, toJsonl([{ type: 'score', run_id: 'r', step_id: 's2', name: 'quality', value: 0.5, ts: 1_700_000_000_999 }]));
    importFile(db, file, { final: true });
    const scored = cache.get('r');
    expect(scored).not.toBe(ended);
    expect(scored.steps.user_scores[2]).toEqual([{ name: 'quality', value: 0.5, source: 'user' }]);
    // Another run's skeleton takes the one place.
    const more = syntheticRunRecords({ runId: 'r2', steps: 5 });
    fs.writeFileSync(path.join(dir, 'r2.jsonl'), toJsonl(more));
    importFile(db, path.join(dir, 'r2.jsonl'), { final: true });
    const other = cache.get('r2');
    expect(other.steps.step_id).toHaveLength(5);
    expect(cache.get('r')).not.toBe(scored);
    expect(cache.get('r')).toEqual(scored);
    db.close();
  });
});
