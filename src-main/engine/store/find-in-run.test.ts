import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from './open-database';
import { importFile } from '../ingest/import-file';
import { getRunDetail } from './read-runs';
import { findStepsInRun } from './find-in-run';
import { findHaystacks, matchHaystacks, normaliseFindText } from '../../../src-shared/find-steps';

let db: Db;
let dir: string;

const at = (i: number) => 1_700_000_000_000 + i;
function step(id: string, i: number, fields: { input?: unknown; output?: unknown; error?: unknown; name?: string }) {
  const end: Record<string, unknown> = { type: 'step-end', run_id: 'r', step_id: id, status: fields.error ? 'error' : 'ok', ts: at(i) + 1, output: fields.output ?? null };
  if (fields.error) end.error = fields.error;
  return [
    { type: 'step-start', run_id: 'r', step_id: id, parent_id: id === 'root' ? null : 'root', index: i, name: fields.name ?? id, step_type: 'tool', replay_key: `/${id}#0`, ts: at(i), input: fields.input ?? null },
    end,
  ];
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-find-'));
  db = openDatabase(path.join(dir, 'traces.db'));
  const records = [
    { type: 'run-start', v: '1.0', run_id: 'r', pipeline: 'find', ts: at(0), input: 'q' },
    ...step('root', 0, { name: 'agent' }),
    ...step('quote', 1, { output: { text: 'She said "stop" and\nleft.' } }),
    ...step('wrapped', 2, { input: { messages: [{ role: 'user', content: 'Paris is the capital\n   of France' }] } }),
    ...step('failed', 3, { error: { type: 'UpstreamTimeout', message: 'search backend did not answer in 5 s' } }),
    ...step('unicode', 4, { output: 'Zürich ist die größte Stadt' }),
    ...step('percent', 5, { output: 'discount 50%_off' }),
    ...step('key', 6, { output: { confidence_score: 0.93 } }),
    ...step('thermo', 7, { output: 'water boils at 373 \u212Aelvin' }),
  ];
  const file = path.join(dir, 'run.jsonl');
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  importFile(db, file, { final: true });
});
afterAll(() => db.close());

/** What the renderer finds when it holds the whole run. */
function whole(query: string) {
  const needle = normaliseFindText(query);
  return getRunDetail(db, 'r')
    .steps.map((s) => matchHaystacks(s.step_id, findHaystacks(s), needle))
    .filter((h) => h !== null);
}

describe('find in a run read in parts', () => {
  it.each([
    'said "stop" and left',
    'capital of  FRANCE',
    'UpstreamTimeout: search backend',
    'upstreamtimeout',
    'ZÜRICH',
    'größte',
    '50%_off',
    '%',
    'confidence_score',
    '0.93',
    'agent',
    'no step holds this',
    '373 kelvin',
  ])('the engine finds %j in exactly the steps the renderer would', (query) => {
    expect(findStepsInRun(db, 'r', query)).toEqual({ hits: whole(query), truncated: false });
  });

  it('finds the step whose output holds text copied with its line break, and names the field', () => {
    expect(findStepsInRun(db, 'r', 'and left.').hits).toEqual([{ stepId: 'quote', fields: ['output'], count: 1 }]);
  });

  it('stops at the limit and says so', () => {
    const all = findStepsInRun(db, 'r', 'e');
    expect(all.hits.length).toBeGreaterThan(2);
    expect(findStepsInRun(db, 'r', 'e', 2)).toEqual({ hits: all.hits.slice(0, 2), truncated: true });
  });
});
