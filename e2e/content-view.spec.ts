import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callApi, expect, screenshot, test } from './fixtures';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/foreign');

test('an imported OpenInference model call reads as a conversation, its answer first; a search highlights inside the messages', async ({ app, tb }) => {
  fs.copyFileSync(path.join(FIXTURES, 'otlp-openinference-langgraph.json'), path.join(tb.inbox, 'otlp-openinference-langgraph.json'));
  await expect.poll(async () => (await callApi(tb, 'listRuns', { filter: 'imported' })).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  const runs = await callApi(tb, 'listRuns', { filter: 'imported' });
  const agent = runs.find((r) => r.status === 'ok')!;
  const detail = await callApi(tb, 'getRun', { runId: agent.run_id });
  const answer = detail.steps.filter((s) => s.name === 'ChatOpenAI')[1];
  const retriever = detail.steps.find((s) => s.name === 'KnowledgeBaseRetriever')!;

  await app.goto(`${tb.url}#/run/${encodeURIComponent(agent.run_id)}?step=${encodeURIComponent(answer.step_id)}`);
  const panel = app.getByTestId('step-panel');
  await expect(panel).toHaveAttribute('data-step-id', answer.step_id);
  // The answer comes before the conversation that led to it.
  const sections = await panel.locator('[data-testid="step-output"], [data-testid="step-input"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  expect(sections).toEqual(['step-output', 'step-input']);
  const output = panel.getByTestId('step-output');
  await expect(output.getByTestId('chat-view').locator('[data-role="assistant"]')).toContainText('ships on 3 May');
  const input = panel.getByTestId('step-input').getByTestId('chat-view');
  await expect(input.locator('.chat-turn')).toHaveCount(4);
  await expect(input.locator('.chat-role')).toHaveText(['user', 'system', 'assistant', 'tool']);
  // The earlier tool call is shown as a call with its arguments, not as JSON syntax.
  await expect(input.getByTestId('chat-tool-call')).toContainText('lookup_order');
  // Text only: no element came from the trace.
  expect(await input.locator('script, img, iframe').count()).toBe(0);

  await panel.getByLabel('Search in this step').fill('A-1042');
  await expect(input.locator('mark.hl-search').first()).toBeVisible();
  await screenshot(app, 'content-chat');

  // The retriever's documents are cards, with their source.
  await app.locator(`.step-row[data-step-id="${retriever.step_id}"]`).click();
  const cards = panel.getByTestId('step-output').getByTestId('document-card');
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText('kb-shipping');
  await expect(cards.first()).toContainText('Orders ship within 2 business days');
  // The raw tree is one click away.
  await panel.getByTestId('step-output').getByRole('button', { name: 'as JSON' }).click();
  await expect(panel.getByTestId('step-output').getByTestId('document-cards')).toHaveCount(0);
});

test('demo retrieval hits are cards ranked with their scores, and clicking blame evidence highlights it inside the rendered content', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', { filter: 'failed' });
  let target: { runId: string; stepId: string; quote: string } | null = null;
  for (const r of runs) {
    const blame = await callApi(tb, 'blameRun', { runId: r.run_id });
    const detail = await callApi(tb, 'getRun', { runId: r.run_id });
    for (const f of blame.blamed) {
      const step = detail.steps.find((s) => s.step_id === f.step_id);
      const ev = f.evidence.find((e) => e.step_id === f.step_id && (e.field === 'output' || e.field === 'input'));
      if (step && ev && (step.type === 'retrieval' || step.type === 'llm')) target = { runId: r.run_id, stepId: step.step_id, quote: ev.quote };
      if (target) break;
    }
    if (target) break;
  }
  expect(target, 'a failed demo run blaming a retrieval or model step with a quote').not.toBeNull();
  await app.goto(`${tb.url}#/run/${encodeURIComponent(target!.runId)}`);
  await app.getByTestId('blamed-step').getByTestId('evidence').first().click();
  const panel = app.getByTestId('step-panel');
  const mark = panel.locator('mark.hl-evidence').first();
  await expect(mark).toBeVisible();
  // The quote sits in a conversation or a document card, not in a raw JSON tree.
  expect(await mark.evaluate((m) => !!m.closest('[data-testid="chat-view"], [data-testid="document-cards"], .json-root'))).toBe(true);
  await app.emulateMedia({ colorScheme: 'dark' });
  await screenshot(app, 'content-evidence-dark');
  await app.emulateMedia({ colorScheme: 'light' });
  await screenshot(app, 'content-evidence-light');

  const detail = await callApi(tb, 'getRun', { runId: target!.runId });
  const retrieve = detail.steps.find((s) => s.type === 'retrieval' && Array.isArray(s.output));
  if (retrieve) {
    await app.locator(`.step-row[data-step-id="${retrieve.step_id}"]`).click();
    const cards = panel.getByTestId('step-output').getByTestId('document-card');
    await expect(cards).toHaveCount((retrieve.output as unknown[]).length);
    await expect(cards.first()).toContainText('score');
    await screenshot(app, 'content-documents');
  }
});
