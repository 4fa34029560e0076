import path from 'node:path';
import { callApi, expect, screenshot, test } from './fixtures';
import { loopRunSpec, writeTrace } from './trace-writer';

test('a run too big to ship whole opens from its skeleton, and the selected step shows its own input and output', async ({ app, tb }) => {
  // Above PAGED_ABOVE (20,000) steps the workbench reads the skeleton and fetches payloads one step at a time.
  const { file, runId } = writeTrace(path.join(tb.home, 'generated'), loopRunSpec('big-loop', 21_000, 'big-loop-run'));
  await callApi(tb, 'importPaths', { paths: [file] });
  const [payload] = await callApi(tb, 'getStepPayloads', { runId, from: 20_500, count: 1 });

  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?step=${encodeURIComponent(payload.step_id)}`);
  await expect(app.getByTestId('waterfall')).toBeVisible({ timeout: 30_000 });
  await expect(app.getByText('21,000 steps')).toBeVisible();
  const panel = app.getByTestId('step-panel');
  await expect(panel).toHaveAttribute('data-step-id', payload.step_id);
  // The payload arrives on its own: the panel shows the step's own recorded values.
  const query = (payload.input as { query: string }).query;
  await expect(panel.getByText(query, { exact: false }).first()).toBeVisible();
  // Its blame lists it as "every check passed" by id only; the panel asks for its checks and lists them.
  const [scored] = await callApi(tb, 'getStepScores', { runId, stepIds: [payload.step_id] });
  expect(scored.checks.length).toBeGreaterThan(0);
  const scores = panel.getByTestId('step-scores');
  await expect(scores.locator('.checks li')).toHaveCount(scored.checks.length, { timeout: 30_000 });
  await expect(scores).toContainText(scored.checks[0].name);
  await screenshot(app, 'big-run-paged');

  // Find in run: the skeleton has no outputs, so the engine searches them; the hit is listed and selectable.
  const wanted = (payload.output as { text: string }).text;
  await app.getByLabel('Find in run').fill(wanted);
  const status = app.getByTestId('find-status');
  await expect(status).toContainText('1 step', { timeout: 30_000 });
  await expect(app.locator('.step-row')).toHaveCount(1);
  await expect(app.locator(`.step-row[data-step-id="${payload.step_id}"] .step-row-where`)).toHaveText('output');
  await app.getByLabel('Find in run').fill('no step holds this text');
  await expect(status).toContainText('No step matches');
  await screenshot(app, 'big-run-find');

  // The graph of a big run folds the loop: the first iteration, then one node for the other 419.
  await app.getByLabel('Find in run').fill('');
  // The graph centres on the selected step; the root's loop is beside the root.
  const [root] = await callApi(tb, 'getStepPayloads', { runId, from: 0, count: 1 });
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?step=${encodeURIComponent(root.step_id)}`);
  await app.getByRole('tab', { name: 'Step graph' }).click();
  await app.getByRole('button', { name: 'Fit View' }).click();
  const loop = app.getByTestId('graph-loop').first();
  await expect(loop).toBeVisible({ timeout: 30_000 });
  await expect(loop).toContainText(/iteration ×\d/);
  // Zoom in around the fold for the screenshot (the fitted view of ~80 nodes is a sliver).
  const box = (await loop.boundingBox())!;
  await app.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 3; i++) await app.mouse.wheel(0, -400);
  await expect(loop).toContainText(/iteration ×\d/);
  await screenshot(app, 'big-run-graph-loop');
  const label = (await loop.textContent())!.trim();
  await loop.click();
  // Unfolded: the fold's node is gone and its iterations are steps of the graph.
  await expect(app.getByTestId('graph-loop').filter({ hasText: label })).toHaveCount(0);

  // Forking a step of a run read in parts: the editor starts from that step's recorded output and replay key.
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?step=${encodeURIComponent(payload.step_id)}`);
  await panel.getByTestId('fork-from-here').click();
  await expect(app.getByTestId('fork-edit-output')).toHaveValue(new RegExp(wanted));
  await expect(app.getByText(payload.replay_key, { exact: false }).first()).toBeVisible();
  await screenshot(app, 'big-run-fork-editor');
});
