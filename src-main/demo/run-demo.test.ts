import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importedRun, tempHome } from '../../test/support/demo-runs';
import { hasRealTiming } from '../../src-renderer/src/waterfall/time-axis';
import { runDemo } from './run-demo';

describe('tb demo', () => {
  it('writes at least six importable runs: healthy ones and failures of different kinds, each with a verdict and an entry to re-run', async () => {
    const home = tempHome();
    const lines: string[] = [];
    const { runIds, inbox } = await runDemo({ home, log: (l) => lines.push(l) });
    expect(runIds.length).toBeGreaterThanOrEqual(6);
    expect(readdirSync(inbox).sort()).toEqual(runIds.map((id) => `${id}.jsonl`).sort());
    expect(lines).toHaveLength(runIds.length);

    const runs = runIds.map((id) => importedRun(home, id));
    for (const r of runs) {
      expect(r.run.verdict).not.toBeNull();
      expect(r.run.entry?.command).toEqual(expect.arrayContaining(['--import', 'tsx', '--variant']));
    }
    const healthy = runs.filter((r) => r.run.verdict?.pass);
    const failing = runs.filter((r) => !r.run.verdict?.pass);
    expect(healthy.length).toBeGreaterThanOrEqual(2);
    const kinds = new Set(failing.map((r) => r.run.tags.variant));
    expect(kinds).toEqual(new Set(['irrelevant-retrieval', 'tool-exception', 'refusal', 'planted']));
    expect(new Set(runs.map((r) => r.run.pipeline))).toEqual(new Set(['support-bot', 'research-team']));
    // Simulated models and services take time, so every demo run opens on its waterfall, on any machine.
    for (const r of runs) expect(hasRealTiming(r.steps), `${r.run.tags.variant} has real timing`).toBe(true);
  });

  it('asked for fewer than six runs it still writes six, with every failure kind among them', async () => {
    const home = tempHome();
    const { runIds } = await runDemo({ home, runs: 2 });
    expect(runIds).toHaveLength(6);
    const failing = runIds.map((id) => importedRun(home, id)).filter((r) => !r.run.verdict?.pass);
    expect(failing.map((r) => r.run.tags.variant).sort()).toEqual(['irrelevant-retrieval', 'planted', 'refusal', 'tool-exception']);
  });
});
