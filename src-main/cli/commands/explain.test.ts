import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runResearchTeam } from '../../demo/research-team';
import { fixtureReply, startMessagesStub, type MessagesStub } from '../../../test/support/messages-stub';

const TB = path.resolve(__dirname, '../tb.ts');
const run = promisify(execFile);

/** Runs tb asynchronously: the stub API answers from this same process. */
async function tb(home: string, env: Record<string, string>, ...args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', TB, ...args], { env: { ...process.env, TRACEBACK_HOME: home, ...env }, encoding: 'utf8', timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('tb explain and tb motifs', () => {
  let home: string;
  let runId: string;
  let ids: Record<string, string>;
  let stub: MessagesStub;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-explain-'));
    const recorded = await runResearchTeam({ home, variant: 'planted' });
    runId = recorded.runId!;
    const show = await tb(home, {}, 'show', runId, '--json');
    const steps = JSON.parse(show.stdout).steps as { step_id: string; name: string }[];
    ids = { STEP_PLANNER: steps.find((s) => s.name === 'planner')!.step_id, STEP_WRITER: steps.find((s) => s.name === 'writer')!.step_id };
    stub = await startMessagesStub([
      { body: fixtureReply('good-answer.json', ids) },
      { body: fixtureReply('hallucinated-quote.json', ids) },
    ]);
    env = { ANTHROPIC_BASE_URL: stub.baseURL, ANTHROPIC_API_KEY: 'test-key' };
  }, 120_000);
  afterAll(() => stub?.close());

  it('--estimate shows model, tokens and cost and sends nothing', async () => {
    const r = await tb(home, env, 'explain', runId, '--estimate', '--json');
    expect(r.code, r.stderr).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.model).toBe('claude-sonnet-4-5');
    expect(e.input_tokens).toBeGreaterThan(100);
    expect(e.within_budget).toBe(true);
    expect(stub.requests).toHaveLength(0);
  });

  it('without a key it says how to give one, and sends nothing', async () => {
    const r = await tb(home, { ...env, ANTHROPIC_API_KEY: '' }, 'explain', runId);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no API key .*ANTHROPIC_API_KEY.*Nothing was sent/);
    expect(stub.requests).toHaveLength(0);
  });

  it('the planner is named with checked quotes, the cost was shown first, and the answer is stored with the run', async () => {
    const r = await tb(home, env, 'explain', runId, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Model claude-sonnet-4-5: about \d+ input tokens/);
    const e = JSON.parse(r.stdout);
    expect(e.candidates[0]).toMatchObject({ step_id: ids.STEP_PLANNER, step_name: 'planner' });
    expect(e.rejected[0].rejected_because[0]).toMatch(/confidence 0.40/);
    const shown = await tb(home, env, 'explain', runId, '--show');
    expect(shown.stdout).toContain('Candidates that passed the evidence gate:');
    expect(shown.stdout).toContain('Rejected by the evidence gate:');
    // Verify runs the trace's command only with the hash of what was shown, as tb fork does.
    const unapproved = await tb(home, env, 'explain', runId, '--verify', '-n', '2');
    expect(unapproved.code).toBe(2);
    expect(unapproved.stderr).toMatch(/which you have not approved[\s\S]*--approve-command [0-9a-f]{16}/);
  }, 60_000);

  it('a hallucinated quote: --json shows the gate rejecting it, and the exit code is 1', async () => {
    const r = await tb(home, env, 'explain', runId, '--json');
    expect(r.code).toBe(1);
    const e = JSON.parse(r.stdout);
    expect(e.candidates).toEqual([]);
    expect(e.rejected[0].evidence[0]).toMatchObject({ grounded: false, match: 'not_found' });
  }, 60_000);

  it('a teammate\'s motif file imports, shows as "Seen before" in blame, exports, and is forgotten', async () => {
    const motif = {
      motif_id: 'motif-team-1',
      name: 'planner set measure to "metro_population" instead of "population"',
      requirement: `When the task says "population", planner's measure must be "population".`,
      violation: 'planner set measure to "metro_population".',
      recommendation: 'Use "population" for measure.',
      task_cue: 'population',
      violation_cue: 'metro_population',
      step_signature: 'planner',
      step_type: 'llm',
      failure_kind: 'verdict',
      signals: ['verdict'],
      evidence: [],
      fix: null,
      proof: null,
      origin: 'blame',
      source_run_id: 'run-on-another-laptop',
      learned_from_run: 'run-on-another-laptop',
      pipeline: 'research-team',
      created_at: 1,
    };
    const file = path.join(home, 'team-motifs.json');
    fs.writeFileSync(file, JSON.stringify({ format: 'traceback-motifs', version: 1, exported_at: 1, motifs: [motif] }));
    const imp = await tb(home, env, 'motifs', 'import', file, '--json');
    expect(imp.code, imp.stderr).toBe(0);
    expect(JSON.parse(imp.stdout)).toEqual({ added: 1, total: 1 });
    const listed = JSON.parse((await tb(home, env, 'motifs', '--json')).stdout);
    expect(listed[0]).toMatchObject({ motif_id: 'motif-team-1', origin: 'imported', source_run_id: null });
    // The SDKs' file is kept current.
    expect(JSON.parse(fs.readFileSync(path.join(home, 'motifs.json'), 'utf8')).motifs).toHaveLength(1);
    const blame = await tb(home, env, 'blame', runId);
    expect(blame.stdout).toContain('Seen before');
    expect(blame.stdout).toContain('motif-team-1');
    const out = path.join(home, 'export.json');
    expect((await tb(home, env, 'motifs', 'export', out)).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).motifs[0].motif_id).toBe('motif-team-1');
    const forgot = await tb(home, env, 'motifs', 'forget', 'motif-team');
    expect(forgot.stdout).toContain('forgot motif-team-1');
    expect((await tb(home, env, 'blame', runId)).stdout).not.toContain('Seen before');
    const bad = await tb(home, env, 'motifs', 'import', path.join(home, 'nope.json'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('nope.json');
  }, 120_000);
});
