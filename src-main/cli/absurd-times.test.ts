/**
 * A trace file may hold a time no date can hold (`"ts": 1e300`). Importing it names the line and
 * stores no such time, and `tb list` / `tb show` keep working for every run of the store, also when
 * a store written before that check already holds one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../engine/create-engine';
import { runCommand } from '../../test/support/run-command';
import { importCommand } from './commands/import';
import { listCommand } from './commands/list';
import { showCommand } from './commands/show';
import { isoTime } from './format-text';

const T = 1_700_000_000_000;
let dir: string;
let engine: Engine;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-absurd-times-'));
  engine = createEngine({ home: path.join(dir, 'home') });
});
afterEach(async () => {
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** A good native run, so a list that breaks on one bad run shows up as losing this one too. */
const goodRun = jsonl([
  { type: 'run-start', v: '1.0', run_id: 'good', pipeline: 'p', ts: T },
  { type: 'step-start', run_id: 'good', step_id: 's1', parent_id: null, index: 0, name: 'a', step_type: 'generic', replay_key: 'a#0', ts: T + 1 },
  { type: 'step-end', run_id: 'good', step_id: 's1', ts: T + 2, status: 'ok' },
  { type: 'run-end', run_id: 'good', ts: T + 3, status: 'ok' },
]);

async function listAndShowAll(): Promise<string> {
  const list = await runCommand(engine, listCommand, []);
  expect(list.code, list.stderr.join('\n')).toBe(0);
  const ids = ((await runCommand(engine, listCommand, ['--json'])).json as { run_id: string }[]).map((r) => r.run_id);
  expect(ids).toContain('good');
  const shown = [list.stdout.join('\n')];
  for (const id of ids) {
    const show = await runCommand(engine, showCommand, [id]);
    expect(show.code, show.stderr.join('\n')).toBe(0);
    shown.push(show.stdout.join('\n'));
  }
  return shown.join('\n');
}

describe('times no date can hold', () => {
  it('native, OTLP, transcript and LangChain files name the line of such a time, and every run still lists and shows', async () => {
    const files = [
      write('good.jsonl', goodRun),
      write(
        'native.jsonl',
        jsonl([
          { type: 'run-start', v: '1.0', run_id: 'nat', pipeline: 'p', ts: T },
          { type: 'step-start', run_id: 'nat', step_id: 's1', parent_id: null, index: 0, name: 'a', step_type: 'generic', replay_key: 'a#0', ts: 1e300 },
          { type: 'step-end', run_id: 'nat', step_id: 's1', ts: -1e300, status: 'ok' },
          { type: 'run-end', run_id: 'nat', ts: T + 3, status: 'ok' },
          // A score may come before its run's records: the run row is made with the score's time.
          { type: 'score', run_id: 'scored-first', name: 'q', value: 1, ts: 1e300 },
        ]),
      ),
      write(
        'otlp.json',
        JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
              scopeSpans: [
                {
                  spans: [
                    { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'root', startTimeUnixNano: '99999999999999999999999999999', endTimeUnixNano: '100000000000000000000000000004' },
                    { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203332', name: 'kept', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '100000000000000000000000000004' },
                  ],
                },
              ],
            },
          ],
        }),
      ),
      write('chat.jsonl', jsonl([{ role: 'user', content: 'hi', timestamp: 1e300 }, { role: 'assistant', content: 'yo', timestamp: T }])),
      write('langchain.json', JSON.stringify([{ id: 'lc1', name: 'n', run_type: 'chain', start_time: T, end_time: 1e300 }, { id: 'lc2', name: 'm', run_type: 'chain', start_time: 1e300 }])),
    ];
    const imported = await runCommand(engine, importCommand, files);
    const said = imported.stderr.join('\n');
    expect(said).toMatch(/native\.jsonl:2: error: step-start record: "ts" 1e\+300 is not a usable time/);
    expect(said).toMatch(/native\.jsonl:3: error: step-end record: "ts" -1e\+300 is not a usable time/);
    expect(said).toMatch(/native\.jsonl:5: warning: score record: "ts" 1e\+300 is not a usable time; read as missing/);
    expect(said).toMatch(/otlp\.json:1: error: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]: startTimeUnixNano "9+" is not a usable time; span skipped/);
    expect(said).toMatch(/chat\.jsonl:1: warning: line 1: "timestamp" 1e\+300 is not a usable time; read as missing/);
    expect(said).toMatch(/langchain\.json:1: error: \[1\]: no valid "start_time"; run skipped/);

    const shown = await listAndShowAll();
    expect(shown).not.toMatch(/invalid time/);
    const stored = new Database(path.join(dir, 'home', 'traces.db'), { readonly: true });
    try {
      const times = stored
        .prepare(`SELECT started_at AS t FROM runs UNION ALL SELECT ended_at FROM runs UNION ALL SELECT started_at FROM steps UNION ALL SELECT ended_at FROM steps`)
        .all() as { t: number | null }[];
      expect(times.length).toBeGreaterThan(4);
      for (const { t } of times) if (t !== null) expect(Math.abs(t)).toBeLessThanOrEqual(8.64e15);
    } finally {
      stored.close();
    }
  });

  it('a store written before imports checked times lists and shows such a run as "(invalid time)"', async () => {
    await runCommand(engine, importCommand, [write('good.jsonl', goodRun)]);
    const db = new Database(path.join(dir, 'home', 'traces.db'));
    db.prepare('UPDATE runs SET started_at = 1e300').run();
    db.prepare('UPDATE steps SET started_at = -1e300').run();
    db.close();

    const shown = await listAndShowAll();
    expect(shown).toMatch(/\(invalid time\)/);
  });

  it('the last millisecond a date can hold still prints as a date', () => {
    expect(isoTime(8.64e15)).toBe('+275760-09-13 00:00:00Z');
    expect(isoTime(8.64e15 + 1)).toBe('(invalid time)');
    expect(isoTime(Number.NaN)).toBe('(invalid time)');
  });
});
