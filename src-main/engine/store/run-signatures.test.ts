import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { homePaths } from '../home';
import { openDatabase, type Db } from './open-database';
import { importFile } from '../ingest/import-file';
import { createAnalysis } from '../analysis-service';
import { getRunDetail, toolStats } from './read-runs';
import { historyFor, pipelineHistory } from './run-signatures';
import { blameRun } from '../blame/index';
import { DEFAULT_SETTINGS } from '../scoring/settings';

const SCENARIOS = path.resolve(__dirname, '../../../bench/blame/scenarios/spectrum');
const TARGET = 'spec-pricing-5';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-signatures-'));
  db = openDatabase(path.join(dir, 'traces.db'));
  for (const f of fs.readdirSync(SCENARIOS).sort()) fs.copyFileSync(path.join(SCENARIOS, f), path.join(dir, f));
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) importFile(db, path.join(dir, f), { final: true });
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Blame as it was computed before stored signatures: the sibling runs loaded whole. */
function blameWithWholeSiblings(runId: string) {
  const detail = getRunDetail(db, runId);
  const ids = (db.prepare('SELECT run_id FROM runs WHERE pipeline = ? AND run_id <> ? AND verdict IS NOT NULL ORDER BY started_at DESC').all(detail.run.pipeline, runId) as { run_id: string }[]).map((r) => r.run_id);
  return blameRun(detail, { settings: DEFAULT_SETTINGS, toolStats: toolStats(db, runId), history: ids.map((id) => getRunDetail(db, id)), asserted: true });
}

describe('the across-runs spectrum from stored step signatures', () => {
  it('blames the same step, with the same reasons, as blame given the sibling runs whole', () => {
    const analysis = createAnalysis(db, homePaths(dir));
    const viaStore = analysis.blame(TARGET, { failed: true });
    const whole = blameWithWholeSiblings(TARGET);
    expect(viaStore.blamed.map((b) => [b.step_id, b.rule, b.reason])).toEqual(whole.blamed.map((b) => [b.step_id, b.rule, b.reason]));
    expect(viaStore.blamed.some((b) => b.rule === 'spectrum')).toBe(true);
    // Every sibling with a verdict was signed once, with the run version it was read from.
    const signed = db.prepare('SELECT s.run_id FROM signed_runs s JOIN runs r USING (run_id) WHERE s.updated_at = r.updated_at ORDER BY s.run_id').pluck().all();
    expect(signed).toEqual(['spec-pricing-0', 'spec-pricing-1', 'spec-pricing-2', 'spec-pricing-3', 'spec-pricing-4', 'spec-pricing-5']);
  });

  it('follows a sibling that changed after it was signed (its signatures are computed again)', () => {
    const analysis = createAnalysis(db, homePaths(dir));
    const first = analysis.blame(TARGET, { failed: true });
    // A passing sibling gains a pricing call without a region, the shape that went with failure alone.
    const sibling = path.join(dir, 'pricing-0.jsonl');
    const steps = [
      { type: 'step-start', run_id: 'spec-pricing-0', step_id: 'late', parent_id: null, index: 9, name: 'pricing_api', step_type: 'tool', replay_key: 'pricing_api#9', ts: 1_700_000_000_090, input: { sku: 'SKU-1' } },
      { type: 'step-end', run_id: 'spec-pricing-0', step_id: 'late', ts: 1_700_000_000_095, status: 'ok', output: { sku: 'SKU-1', price: 5, currency: 'USD' } },
    ];
    fs.appendFileSync(sibling, steps.map((s) => JSON.stringify(s)).join('\n') + '\n');
    importFile(db, sibling, { final: true });
    const before = db.prepare("SELECT COUNT(*) FROM run_signatures WHERE run_id = 'spec-pricing-0'").pluck().get() as number;
    const viaStore = analysis.blame(TARGET, { failed: true });
    const spectrum = viaStore.blamed.find((b) => b.rule === 'spectrum');
    expect(spectrum?.reason ?? '').not.toEqual(first.blamed.find((b) => b.rule === 'spectrum')?.reason);
    expect(viaStore.blamed.map((b) => [b.step_id, b.rule, b.reason])).toEqual(blameWithWholeSiblings(TARGET).blamed.map((b) => [b.step_id, b.rule, b.reason]));
    expect(db.prepare("SELECT COUNT(*) FROM run_signatures WHERE run_id = 'spec-pricing-0'").pluck().get()).toBe(before + 1);
  });
});

describe('a refresh of many runs shares each pipeline history (analysis-service.ts, HistoryMemo)', () => {
  it('stores, for every run, the blame it gets when refreshed alone, with more runs than one history holds', async () => {
    const { syntheticRunRecords, toJsonl } = await import('../../../test/support/synthetic-trace');
    const runs = 70;
    const records = Array.from({ length: runs }, (_, i) => {
      const failing = i % 5 === 0;
      const recs = syntheticRunRecords({ runId: `many-${i}`, pipeline: 'many', steps: 6, failAt: failing ? 2 : undefined, startTs: 1_700_000_000_000 + Math.floor(i / 3) * 1000 });
      const start = recs[0] as { input?: unknown };
      start.input = { question: `question ${i} about the ${['ledger', 'invoice', 'refund', 'order', 'payout', 'tax', 'fee'][i % 7]}` };
      recs.push({ type: 'verdict', run_id: `many-${i}`, pass: !failing, ts: 1_700_000_000_000 + i * 1000 + 500 } as never);
      return recs;
    }).flat();
    const ids = Array.from({ length: runs }, (_, i) => `many-${i}`);
    const storedBlames = (home: string, refresh: (a: ReturnType<typeof createAnalysis>) => void) => {
      fs.mkdirSync(home);
      fs.writeFileSync(path.join(home, 'many.jsonl'), toJsonl(records));
      const d = openDatabase(path.join(home, 'traces.db'));
      try {
        importFile(d, path.join(home, 'many.jsonl'), { final: true });
        const analysis = createAnalysis(d, homePaths(home));
        refresh(analysis);
        // Each run's history is what the one query for it read before (runs start three at a time: ties included).
        const bySql = d.prepare('SELECT run_id FROM runs WHERE pipeline = ? AND run_id <> ? AND verdict IS NOT NULL ORDER BY started_at DESC LIMIT ?').pluck();
        const newest = pipelineHistory(d, 'many', 50);
        for (const id of ids) expect(historyFor(newest, id, 50).map((r) => r.run_id)).toEqual(bySql.all('many', id, 50));
        return d.prepare('SELECT run_id, result FROM blame_results ORDER BY run_id').all() as { run_id: string; result: string }[];
      } finally {
        d.close();
      }
    };
    const together = storedBlames(path.join(dir, 'together'), (a) => a.refresh(ids));
    const alone = storedBlames(path.join(dir, 'alone'), (a) => ids.forEach((id) => a.refresh([id])));
    expect(together.length).toBe(runs);
    expect(together).toEqual(alone);
    // The history mattered: the newest failing run is compared with the 50 runs before it, itself counted among the failing.
    const newestFailing = together.find((r) => r.run_id === 'many-65')!;
    const spectrum = (JSON.parse(newestFailing.result) as { blamed: { rule: string; reason: string }[] }).blamed.find((b) => b.rule === 'spectrum');
    const counted = /of (\d+) failing runs and \d+ of (\d+) passing runs/.exec(spectrum?.reason ?? '');
    expect(counted && Number(counted[1]) + Number(counted[2])).toBe(51);
  });
});
