import { describe, expect, it } from 'vitest';
import type { BlameResult } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import { importedRun, tempHome } from '../../../test/support/demo-runs';
import { runResearchTeam } from '../../demo/research-team';
import { runSupportBot } from '../../demo/support-bot';
import { isVerbatim } from '../text/evidence-quote';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { blameRun } from './blame-run';

// The demo's failing runs have planted causes (src-main/demo); `tb blame` must name them.
function blame(d: RunDetail, history: RunDetail[] = []): BlameResult {
  const r = blameRun(d, { settings: DEFAULT_SETTINGS, toolStats: {}, history });
  for (const x of [...r.blamed, ...r.co_blamed]) for (const e of x.evidence) expect(isVerbatim(e, d.steps, d.run), `quote ${e.quote}`).toBe(true);
  return r;
}

async function supportRun(variant: string, seed = 1): Promise<RunDetail> {
  const home = tempHome();
  const r = await runSupportBot(variant, { home, seed, entry: null });
  return importedRun(home, r.runId!);
}

describe("the demo's failing runs blame their planted causes", () => {
  it('research-team: a plan that filters on metro_population, executed faithfully, blames the planner for every seed', async () => {
    const home = tempHome();
    const fixed = importedRun(home, (await runResearchTeam({ home, variant: 'fixed', entry: null })).runId!);
    for (const seed of [1, 2, 3, 7, 11]) {
      const r = await runResearchTeam({ home, seed, variant: 'planted', entry: null });
      const res = blame(importedRun(home, r.runId!), [fixed]);
      expect(res.blamed[0], `seed ${seed}`).toMatchObject({ name: 'planner', rule: 'faithful-executor', confidence: 'high' });
      expect(res.blamed[0].reason).toContain('metro_population');
      expect(res.symptoms.map((s) => s.name)).toContain('query_table');
    }
    expect(blame(fixed).healthy).toBe(true);
  });

  it('irrelevant-retrieval blames retrieve and quotes a passage, not a document id', async () => {
    const r = blame(await supportRun('irrelevant-retrieval'));
    expect(r.blamed[0].name).toBe('retrieve');
    expect(r.blamed[0].evidence[0].quote.split(/\s+/).length).toBeGreaterThan(3);
  });

  it('tool-exception blames exchange_rate', async () => {
    expect(blame(await supportRun('tool-exception')).blamed[0].name).toBe('exchange_rate');
  });

  it('refusal blames generate and quotes the passage sentence that held the answer and the refusal, never a role name', async () => {
    const r = blame(await supportRun('refusal'));
    expect(r.blamed[0].name).toBe('generate');
    const quotes = r.blamed[0].evidence.map((e) => e.quote);
    expect(quotes).not.toContain('system');
    expect(quotes.some((q) => q.includes('nimbus sync --restart') && q.split(/\s+/).length > 5)).toBe(true);
    expect(quotes).toContain("I'm sorry, but I can't help with that request.");
    expect(r.blamed[0].reason).toContain('nimbus sync --restart');
  });

  it.each(['healthy-lookup', 'healthy-calc', 'healthy-retry', 'healthy-sync'])('%s stays healthy and still gets its lineage edges', async (variant) => {
    const r = blame(await supportRun(variant));
    expect(r.healthy).toBe(true);
    expect(r.blamed).toEqual([]);
    expect(r.lineage_edges?.length).toBeGreaterThan(0);
  });
});
