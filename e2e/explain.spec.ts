import { callApi, expect, screenshot, test } from './fixtures';
import { fixtureReply, startMessagesStub, type MessagesStub } from '../test/support/messages-stub';

// The model is a local stub of the Messages API: `tb serve` inherits ANTHROPIC_BASE_URL from this process.
let stub: MessagesStub;
const saved = { url: process.env.ANTHROPIC_BASE_URL, key: process.env.ANTHROPIC_API_KEY };
const ids: Record<string, string> = {};

test.beforeAll(async () => {
  stub = await startMessagesStub([{ body: () => fixtureReply('good-answer.json', ids) }]);
  process.env.ANTHROPIC_BASE_URL = stub.baseURL;
  process.env.ANTHROPIC_API_KEY = 'e2e-key';
});
test.afterAll(async () => {
  await stub.close();
  process.env.ANTHROPIC_BASE_URL = saved.url;
  process.env.ANTHROPIC_API_KEY = saved.key;
});

test('a failed run shows a teammate\'s motif as seen before; asking a model shows the cost first, then the checked candidates and the rejected one, and verifies the proposed edit by experiment', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', { pipeline: 'research-team' });
  const failed = runs.find((r) => r.verdict && !r.verdict.pass)!;
  const detail = await callApi(tb, 'getRun', { runId: failed.run_id });
  ids.STEP_PLANNER = detail.steps.find((s) => s.name === 'planner')!.step_id;
  ids.STEP_WRITER = detail.steps.find((s) => s.name === 'writer')!.step_id;
  const blame = await callApi(tb, 'blameRun', { runId: failed.run_id });
  // A teammate's motif about this kind of failure: the panel says it was seen before.
  const motif = {
    motif_id: 'motif-e2e-planner',
    name: 'planner set measure to "metro_population" instead of "population"',
    requirement: `When the task says "population", planner's measure must be "population".`,
    violation: 'planner set measure to "metro_population".',
    recommendation: 'Use "population" for measure.',
    task_cue: 'population',
    violation_cue: 'metro_population',
    step_signature: 'planner',
    step_type: 'llm',
    failure_kind: null,
    signals: [],
    evidence: [],
    fix: null,
    proof: null,
    origin: 'blame',
    source_run_id: null,
    learned_from_run: 'run-elsewhere',
    pipeline: 'research-team',
    created_at: 1,
  };
  await callApi(tb, 'importMotifs', { content: JSON.stringify({ format: 'traceback-motifs', version: 1, exported_at: 1, motifs: [motif] }), name: 'team.json' });

  await app.goto(`${tb.url}#/run/${encodeURIComponent(failed.run_id)}`);
  await expect(app.getByTestId('seen-before-motif')).toContainText('planner set measure to "metro_population"');
  const section = app.getByTestId('explain-section');
  await section.getByTestId('explain-button').click();
  const estimate = section.getByTestId('explain-estimate');
  await expect(estimate).toContainText('claude-sonnet-4-5');
  await expect(estimate).toContainText(/at most \$0\.\d{4}/);
  expect(stub.requests).toHaveLength(0);

  await estimate.getByTestId('explain-send').click();
  await expect(section.getByTestId('explain-candidate')).toHaveCount(1);
  await expect(section.getByTestId('explain-candidate')).toContainText('planner');
  await expect(section.getByTestId('explain-rejection-reason').first()).toContainText('confidence 0.40 is below 0.70');
  if (blame.blamed[0]?.step_id !== ids.STEP_PLANNER) await expect(section.getByTestId('explain-disagrees')).toBeVisible();
  else await expect(section.getByTestId('explain-disagrees')).toHaveCount(0);
  expect(stub.requests).toHaveLength(1);
  await screenshot(app, 'explain-second-opinion');

  // Verify: the planner's proposed output runs as a fork experiment once the command is approved.
  const verify = section.getByTestId('explain-verify');
  await verify.getByRole('spinbutton').fill('4');
  await verify.getByTestId('verify-approve').check();
  await verify.getByTestId('verify-start').click();
  await expect(verify.getByTestId('explain-verification')).toContainText(/planner: effect \d\.\d\d, p = /, { timeout: 120_000 });
});
