import { callApi, expect, failedRunWithEvidence, runRows, screenshot, test } from './fixtures';

test('opening a failed demo run shows its steps and its error', async ({ app, tb }) => {
  const failed = await callApi(tb, 'listRuns', { filter: 'failed' });
  let target: { runId: string; stepId: string; message: string; steps: number } | null = null;
  for (const run of failed) {
    const detail = await callApi(tb, 'getRun', { runId: run.run_id });
    const errored = detail.steps.find((s) => s.error);
    if (errored) {
      target = { runId: run.run_id, stepId: errored.step_id, message: errored.error!.message, steps: detail.steps.length };
      break;
    }
  }
  expect(target, 'a failed demo run with an errored step').not.toBeNull();

  await app.getByRole('button', { name: 'Failed', exact: true }).click();
  await app.locator(`[data-run-id="${target!.runId}"]`).click();
  const workbench = app.getByTestId('run-workbench');
  await expect(workbench).toHaveAttribute('data-run-id', target!.runId);
  await expect(app.getByRole('tree', { name: 'Steps' }).getByRole('treeitem')).toHaveCount(target!.steps);

  await app.locator(`.step-row[data-step-id="${target!.stepId}"]`).click();
  const panel = app.getByTestId('step-panel');
  await expect(panel).toHaveAttribute('data-step-id', target!.stepId);
  await expect(panel.getByTestId('step-error')).toContainText(target!.message.slice(0, 80));
  await expect(panel.getByTestId('step-input')).toBeVisible();
  await expect(panel.getByTestId('step-output')).toBeVisible();
  await screenshot(app, 'run-failed-step');
});

test('the blame panel names the cause, and clicking its evidence highlights the quote in the step', async ({ app, tb }) => {
  const { run, blame } = await failedRunWithEvidence(tb);
  const top = blame.blamed[0];
  const evidence = top.evidence[0];
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}?tab=graph`);

  const card = app.getByTestId('blamed-step');
  await expect(card).toContainText(top.name);
  await expect(card.getByTestId('blame-reason')).toHaveText(top.reason);
  await expect(card).toContainText(`${top.confidence} confidence`);
  await expect(card.getByRole('button', { name: 'Fork from here' })).toBeEnabled();
  await expect(app.locator(`.graph-node.look-blamed[data-step-id="${top.step_id}"]`)).toBeVisible();
  if (blame.lineage_path.length > 1) await expect(app.locator('.react-flow__edge.edge-lineage').first()).toBeAttached();

  await card.getByTestId('evidence').first().click();
  const panel = app.getByTestId('step-panel');
  await expect(panel).toHaveAttribute('data-step-id', evidence.step_id);
  const mark = panel.locator('mark.hl-evidence').first();
  await expect(mark).toBeVisible();
  await expect(mark).toHaveText(evidence.quote.length > 2000 ? /./ : evidence.quote);
  await expect(app).toHaveURL(new RegExp(`step=${encodeURIComponent(evidence.step_id)}`));
  await screenshot(app, 'run-blame-evidence');

  // The link restores the run and the step.
  await app.reload();
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', evidence.step_id);
});

test('a step with children collapses and expands in the list and on the graph, and arrow keys walk the graph', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', {});
  let pick: { runId: string; parent: string; child: string } | null = null;
  for (const run of runs) {
    const detail = await callApi(tb, 'getRun', { runId: run.run_id });
    const child = detail.steps.find((s) => s.parent_id !== null);
    if (child) {
      pick = { runId: run.run_id, parent: child.parent_id!, child: child.step_id };
      break;
    }
  }
  expect(pick, 'a demo run with nested steps').not.toBeNull();
  await expect(runRows(app).first()).toBeVisible();
  await app.locator(`[data-run-id="${pick!.runId}"]`).click();
  await app.getByRole('tab', { name: 'Step graph' }).click();

  const parentRow = app.locator(`.step-row[data-step-id="${pick!.parent}"]`);
  const childRow = app.locator(`.step-row[data-step-id="${pick!.child}"]`);
  await expect(childRow).toBeVisible();
  await parentRow.getByRole('button', { name: 'Collapse' }).click();
  await expect(childRow).toHaveCount(0);
  await expect(app.locator(`.graph-node[data-step-id="${pick!.child}"]`)).toHaveCount(0);
  await expect(parentRow).toHaveAttribute('aria-expanded', 'false');

  await app.locator(`.graph-node[data-step-id="${pick!.parent}"]`).getByRole('button', { name: /^Expand/ }).click();
  await expect(childRow).toBeVisible();
  await expect(app.locator(`.graph-node[data-step-id="${pick!.child}"]`)).toBeVisible();

  // Keyboard: select the parent, then Right moves to its first child.
  await app.locator(`.graph-node[data-step-id="${pick!.parent}"]`).click();
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', pick!.parent);
  await app.getByTestId('step-graph').focus();
  await app.keyboard.press('ArrowRight');
  await expect(app.getByTestId('step-panel')).not.toHaveAttribute('data-step-id', pick!.parent);
  await app.keyboard.press('ArrowLeft');
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', pick!.parent);
  await screenshot(app, 'run-graph');
});

test('searching within a step highlights the matches', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', {});
  const detail = await callApi(tb, 'getRun', { runId: runs[0].run_id });
  const step = detail.steps.find((s) => typeof s.input === 'string' || (s.input && JSON.stringify(s.input).length > 10));
  expect(step).toBeTruthy();
  const word = (JSON.stringify(step!.input).match(/[A-Za-z]{4,}/) ?? [''])[0];
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runs[0].run_id)}?step=${encodeURIComponent(step!.step_id)}`);
  await app.getByLabel('Search in this step').fill(word);
  await expect(app.getByTestId('step-search-count')).not.toHaveText('0 matches');
  await expect(app.getByTestId('step-panel').locator('mark.hl-search').first()).toBeVisible();
});

test('the charts show per-step latency and scores, and the pipeline over time', async ({ app, tb }) => {
  const { run } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}?tab=charts`);
  await expect(app.getByTestId('chart-latency').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(app.getByTestId('chart-scores').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(app.getByTestId('chart-pipeline-duration').locator('circle').first()).toBeVisible();
  await screenshot(app, 'run-charts');
});

test('exporting a report downloads a file for each offered format', async ({ app, tb }) => {
  const { run } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  for (const [label, ext] of [
    ['Markdown (.md)', 'md'],
    ['HTML (.html)', 'html'],
    ['JSON (.json)', 'json'],
    ['PDF (.pdf)', 'pdf'],
  ] as const) {
    await app.getByRole('button', { name: /Export report/ }).click();
    const download = app.waitForEvent('download');
    await app.getByRole('menuitem', { name: label }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`\\.${ext}$`));
    const body = await (await file.createReadStream()).toArray();
    const text = Buffer.concat(body as Buffer[]).toString('utf8');
    expect(text.length).toBeGreaterThan(50);
    if (ext === 'json') expect(() => JSON.parse(text)).not.toThrow();
    if (ext === 'pdf') expect(text.startsWith('%PDF-')).toBe(true);
  }
});

test('the failing research-team run shows the data flow of the selected step on the graph, and all of it on request', async ({ app, tb }) => {
  const failed = await callApi(tb, 'listRuns', { filter: 'failed' });
  const run = failed.find((r) => r.pipeline === 'research-team');
  expect(run, 'a failed research-team demo run').toBeTruthy();
  const blame = await callApi(tb, 'blameRun', { runId: run!.run_id });
  expect(blame.lineage_edges?.length ?? 0, 'the engine inferred data lineage').toBeGreaterThan(0);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run!.run_id)}?tab=graph`);

  const flows = app.locator('.react-flow__edge.edge-dataflow');
  const path = app.locator('.react-flow__edge.edge-lineage');
  await expect(path.first()).toBeAttached();
  const all = app.getByRole('checkbox', { name: /all data flow/ });
  await expect(all).not.toBeChecked();
  const before = await flows.count();

  // Selecting a step with flows draws its flows (and only what touches it or the lineage path).
  const busiest = [...new Set(blame.lineage_edges!.map((e) => e.from))].sort(
    (x, y) => blame.lineage_edges!.filter((e) => e.from === y || e.to === y).length - blame.lineage_edges!.filter((e) => e.from === x || e.to === x).length,
  )[0];
  await app.locator(`.graph-node[data-step-id="${busiest}"]`).click();
  await expect.poll(() => flows.count()).toBeGreaterThan(0);
  const selectedOnly = await flows.count();
  await expect(flows.first().locator('title')).toHaveText(/ · (value|state|tool_call|parent)/);
  await screenshot(app, 'run-graph-lineage');

  await all.check();
  await expect.poll(() => flows.count()).toBeGreaterThanOrEqual(Math.max(before, selectedOnly));
  // Fewer drawn than inferred: hops of the blame's lineage path are drawn once, as the path.
  expect(await flows.count()).toBeLessThanOrEqual(blame.lineage_edges!.length);
  await all.uncheck();
  await expect(flows).toHaveCount(selectedOnly);
  await expect(path.first()).toBeAttached();
});

test('a user marks a healthy-looking run as failed with the expected answer, sees ranked suspects, and can clear the mark', async ({ app, tb }) => {
  const healthy = (await callApi(tb, 'listRuns', { filter: 'healthy' })).find((r) => r.steps >= 3);
  expect(healthy, 'a healthy demo run with a few steps').toBeDefined();
  await app.goto(`${tb.url}#/run/${encodeURIComponent(healthy!.run_id)}`);
  await expect(app.getByTestId('blame-verdict')).toContainText(/Healthy run|Possibly failed/);

  await app.getByTestId('mark-failed-button').click();
  const dialog = app.getByTestId('mark-failed-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('mark-failed-expected').fill('Only Port Aurel and Vessen');
  await screenshot(app, 'mark-as-failed-dialog');
  await dialog.getByTestId('mark-failed-confirm').click();

  await expect(app.getByTestId('blame-verdict')).toContainText('Failed (marked by you).');
  await expect(app.getByTestId('blame-verdict')).toContainText('Only Port Aurel and Vessen');
  await expect(app.getByTestId('blamed-step')).toBeVisible();
  // The two lower-ranked suspects are suspects, not co-blamed: the engine's co_blamed is empty here.
  await expect(app.getByTestId('suspect-step')).toHaveCount(2);
  await expect(app.getByTestId('co-blamed-step')).toHaveCount(0);
  await expect(app.getByTestId('marked-failed')).toBeVisible();
  await expect(app.locator('.run-header .status-pill')).toHaveText('failed (you)');
  await screenshot(app, 'marked-failed-ranking');

  // The mark is stored on the run: the gate and a fresh blame see it.
  const stored = await callApi(tb, 'blameRun', { runId: healthy!.run_id });
  expect(stored.asserted).toBe(true);
  expect(stored.blamed.length).toBe(3);

  await app.getByTestId('marked-failed').getByRole('button', { name: 'Clear mark' }).click();
  await expect(app.getByTestId('mark-failed-button')).toBeVisible();
  await expect(app.getByTestId('blame-verdict')).not.toContainText('marked by you');
});

test('Escape closes the Mark as failed dialog without marking the run', async ({ app, tb }) => {
  const healthy = (await callApi(tb, 'listRuns', { filter: 'healthy' }))[0];
  await app.goto(`${tb.url}#/run/${encodeURIComponent(healthy.run_id)}`);
  await app.getByTestId('mark-failed-button').click();
  await expect(app.getByTestId('mark-failed-dialog')).toBeVisible();
  await app.keyboard.press('Escape');
  await expect(app.getByTestId('mark-failed-dialog')).toHaveCount(0);
  expect((await callApi(tb, 'blameRun', { runId: healthy.run_id })).asserted).toBe(false);
});
