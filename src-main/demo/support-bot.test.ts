import { describe, expect, it } from 'vitest';
import { importedRun, stepOf, tempHome } from '../../test/support/demo-runs';
import { runSupportBot, SUPPORT_VARIANTS } from './support-bot';

describe('the support-bot demo', () => {
  it.each(['healthy-lookup', 'healthy-calc', 'healthy-retry', 'healthy-sync'])('%s answers correctly and records a passing verdict', async (variant) => {
    const home = tempHome();
    const r = await runSupportBot(variant, { home });
    expect(r.pass).toBe(true);
    const run = importedRun(home, r.runId!);
    expect(run.run.status).toBe('ok');
    expect(run.run.verdict).toMatchObject({ pass: true, expected: SUPPORT_VARIANTS[variant].expected });
  });

  it('irrelevant-retrieval: every retrieved passage scores 0 and none is the file-size page, so the faithful answer is wrong', async () => {
    const home = tempHome();
    const r = await runSupportBot('irrelevant-retrieval', { home });
    expect(r.pass).toBe(false);
    const run = importedRun(home, r.runId!);
    expect(run.run.verdict?.pass).toBe(false);
    const passages = stepOf(run, 'retrieve#0').output as { id: string; title: string; score: number }[];
    expect(passages.map((p) => p.score)).toEqual([0, 0, 0]);
    expect(passages.map((p) => p.id)).not.toContain('file-size-limits');
    // The answer quotes one of the passages it was given: generate is a symptom.
    const answer = stepOf(run, 'generate#0').output as string;
    expect(passages.some((p) => answer.includes(`"${p.title}"`))).toBe(true);
  });

  it('tool-exception: both exchange_rate attempts fail with status 503 and the run ends in that error', async () => {
    const home = tempHome();
    const r = await runSupportBot('tool-exception', { home });
    expect(r.pass).toBe(false);
    const run = importedRun(home, r.runId!);
    expect(run.run.status).toBe('error');
    expect(run.run.verdict?.pass).toBe(false);
    for (const key of ['exchange_rate#0', 'exchange_rate#1']) {
      expect(stepOf(run, key)).toMatchObject({ status: 'error', error: { type: 'RatesServiceError', status: 503 } });
    }
    expect(run.run.error?.message).toContain('rates service unavailable');
  });

  it('healthy-retry: the first exchange_rate call fails and the retry succeeds, so the error was recovered', async () => {
    const home = tempHome();
    const r = await runSupportBot('healthy-retry', { home });
    const run = importedRun(home, r.runId!);
    expect(stepOf(run, 'exchange_rate#0').status).toBe('error');
    expect(stepOf(run, 'exchange_rate#1')).toMatchObject({ status: 'ok', output: 0.92 });
    expect(run.run.verdict?.pass).toBe(true);
  });

  it('refusal: the right passage is retrieved first, yet the model refuses', async () => {
    const home = tempHome();
    const r = await runSupportBot('refusal', { home });
    expect(r.pass).toBe(false);
    const run = importedRun(home, r.runId!);
    expect((stepOf(run, 'retrieve#0').output as { id: string }[])[0].id).toBe('sync-troubleshooting');
    expect(stepOf(run, 'build_prompt#0').output).toEqual(expect.arrayContaining([expect.objectContaining({ content: expect.stringContaining('nimbus sync --restart') })]));
    expect(stepOf(run, 'generate#0')).toMatchObject({ output: expect.stringMatching(/can't help/), metadata: { finish_reason: 'refusal' } });
  });

  it('the calculator path loops generate → calculator → generate with stable replay keys', async () => {
    const home = tempHome();
    const r = await runSupportBot('healthy-calc', { home });
    const run = importedRun(home, r.runId!);
    expect(run.steps.map((s) => s.replay_key)).toEqual(['retrieve#0', 'build_prompt#0', 'generate#0', 'calculator#0', 'generate#1']);
    expect(stepOf(run, 'calculator#0').output).toBe(1800);
  });
});
