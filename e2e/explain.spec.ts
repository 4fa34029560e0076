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

test('asking a model for a second opinion shows the cost first, then the checked candidates, the rejected one, and the disagreement', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', { pipeline: 'research-team' });
  const failed = runs.find((r) => r.verdict && !r.verdict.pass)!;
  const detail = await callApi(tb, 'getRun', { runId: failed.run_id });
  ids.STEP_PLANNER = detail.steps.find((s) => s.name === 'planner')!.step_id;
  ids.STEP_WRITER = detail.steps.find((s) => s.name === 'writer')!.step_id;
  const blame = await callApi(tb, 'blameRun', { runId: failed.run_id });

  await app.goto(`${tb.url}#/run/${encodeURIComponent(failed.run_id)}`);
  const section = app.getByTestId('explain-section');
  await section.getByTestId('explain-button').click();
  const estimate = section.getByTestId('explain-estimate');
  await expect(estimate).toContainText('claude-sonnet-4-5');
  await expect(estimate).toContainText(/at most \$0\.\d{4}/);
  expect(stub.requests).toHaveLength(0);

  await estimate.getByTestId('explain-send').click();
  await expect(section.getByTestId('explain-candidate')).toHaveCount(1);
  await expect(section.getByTestId('explain-candidate')).toContainText('planner');
  await expect(section.getByTestId('explain-rejection-reason')).toContainText('confidence 0.40 is below 0.70');
  if (blame.blamed[0]?.step_id !== ids.STEP_PLANNER) await expect(section.getByTestId('explain-disagrees')).toBeVisible();
  else await expect(section.getByTestId('explain-disagrees')).toHaveCount(0);
  expect(stub.requests).toHaveLength(1);
  await screenshot(app, 'explain-second-opinion');
});
