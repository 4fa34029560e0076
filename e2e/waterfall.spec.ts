import path from 'node:path';
import { callApi, expect, failedRunWithEvidence, screenshot, test } from './fixtures';
import { writeLangGraphRun } from './support/langgraph-run';

const FOREIGN = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../test/fixtures/foreign');

test('a demo run with real timing opens on its waterfall: bars on one time axis, the blamed step marked, selection shared with the list and the graph', async ({ app, tb }) => {
  const { run, blame } = await failedRunWithEvidence(tb);
  const detail = await callApi(tb, 'getRun', { runId: run.run_id });
  const top = blame.blamed[0];
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);

  const waterfall = app.getByTestId('waterfall');
  await expect(waterfall).toBeVisible();
  await expect(app.getByRole('tab', { name: 'Waterfall' })).toHaveAttribute('aria-selected', 'true');
  await expect(waterfall.locator('.wf-row')).toHaveCount(detail.steps.length);
  await expect(waterfall.locator('.wf-tick').first()).toHaveText('0');
  const blamedRow = waterfall.locator(`.wf-row[data-step-id="${top.step_id}"]`);
  await expect(blamedRow).toHaveClass(/look-blamed/);
  await expect(blamedRow.locator('.wf-flag-blamed')).toHaveText('blamed');
  // The root's bar spans the whole axis; a later step's bar starts to the right of the first one's.
  const first = await waterfall.locator('.wf-row').first().locator('.wf-bar').boundingBox();
  const last = await waterfall.locator('.wf-row').last().locator('.wf-bar').boundingBox();
  expect(last!.x).toBeGreaterThan(first!.x);
  await screenshot(app, 'waterfall-demo');

  // Clicking a row selects the step everywhere; arrow keys move the selection.
  const second = detail.steps[1];
  await waterfall.locator(`.wf-row[data-step-id="${second.step_id}"]`).click();
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', second.step_id);
  await expect(app.locator(`.step-row[data-step-id="${second.step_id}"]`)).toHaveClass(/is-selected/);
  await app.keyboard.press('ArrowDown');
  const third = await app.getByTestId('step-panel').getAttribute('data-step-id');
  expect(third).not.toBe(second.step_id);
  await expect(waterfall.locator(`.wf-row[data-step-id="${third}"]`)).toHaveAttribute('aria-selected', 'true');

  // The graph is one click away and shows the same selection.
  await app.getByRole('tab', { name: 'Step graph' }).click();
  await expect(app.locator(`.graph-node.is-selected[data-step-id="${third}"]`)).toBeVisible();
  await app.getByRole('tab', { name: 'Waterfall' }).click();
  await expect(waterfall.locator(`.wf-row[data-step-id="${third}"]`)).toHaveAttribute('aria-selected', 'true');
});

test('dragging across the time axis zooms the waterfall to that range, and Reset zoom shows the whole run again', async ({ app, tb }) => {
  const { run } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  const axis = app.getByTestId('waterfall-axis');
  await expect(axis).toBeVisible();
  const before = await app.locator('.wf-tick').allTextContents();
  const box = (await axis.boundingBox())!;
  await app.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
  await app.mouse.down();
  await app.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2, { steps: 5 });
  await app.mouse.up();
  await expect(app.getByTestId('waterfall-reset')).toBeEnabled();
  await expect(app.getByTestId('waterfall').locator('.wf-toolbar')).toContainText('Showing');
  const after = await app.locator('.wf-tick').allTextContents();
  expect(after).not.toEqual(before);
  expect(after[0]).not.toBe('0');
  await expect(app.getByTestId('waterfall-minimap').locator('.wf-minimap-view')).toBeVisible();
  await screenshot(app, 'waterfall-zoomed');
  await app.getByTestId('waterfall-reset').click();
  await expect(app.getByTestId('waterfall-reset')).toBeDisabled();
  expect(await app.locator('.wf-tick').allTextContents()).toEqual(before);
});

test('an imported LangGraph run (LangChain run trees) opens on its waterfall with the 5 s tool timeout red and its parallel tools side by side in time', async ({ app, tb }) => {
  const lg = writeLangGraphRun(path.join(tb.home, 'generated'));
  const report = await callApi(tb, 'importPaths', { paths: [lg.file] });
  const runId = report.imported[0].runs[0];
  const detail = await callApi(tb, 'getRun', { runId });
  const timeout = detail.steps.find((s) => s.status === 'error')!;
  // A link to the failed step opens the waterfall scrolled to it.
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?step=${encodeURIComponent(timeout.step_id)}`);
  const waterfall = app.getByTestId('waterfall');
  // Rows are virtualized: the count is the waterfall's, the DOM holds what is on screen.
  await expect(waterfall).toHaveAttribute('data-row-count', String(lg.steps));
  const errRow = waterfall.locator(`.wf-row[data-step-id="${timeout.step_id}"]`);
  await expect(errRow).toHaveAttribute('aria-selected', 'true');
  // The round that holds the timeout did not fail itself, but is not drawn healthy.
  await expect(waterfall.locator(`.wf-row[data-step-id="${timeout.parent_id}"]`)).toHaveClass(/holds-error/);
  // The step list says the same of that round: no green dot on a step that holds a failure.
  const listRow = app.locator(`.step-row[data-step-id="${timeout.parent_id}"]`);
  await expect(listRow).toHaveClass(/holds-error/);
  await expect(listRow.locator('.look-dot')).toHaveAttribute('title', 'a step inside this one failed');
  await expect(errRow).toHaveClass(/look-(error|blamed|symptom)/);
  const bar = (await errRow.locator('.wf-bar').boundingBox())!;
  const track = (await errRow.locator('.wf-track').boundingBox())!;
  // 5 s of a 7.4 s run: the bar covers well over half the axis.
  expect(bar.width / track.width).toBeGreaterThan(0.6);
  // The two tools of the last round overlap in time.
  const sibling = detail.steps.find((s) => s.parent_id === timeout.parent_id && s.name === 'lookup_order')!;
  const sib = (await waterfall.locator(`.wf-row[data-step-id="${sibling.step_id}"] .wf-bar`).boundingBox())!;
  expect(sib.x).toBeLessThan(bar.x + bar.width);
  expect(sib.x + sib.width).toBeGreaterThan(bar.x);
  await screenshot(app, 'waterfall-langgraph-import');
});

test('an OTLP run from OpenInference opens on its waterfall with its failed model call red', async ({ app, tb }) => {
  const report = await callApi(tb, 'importPaths', { paths: [path.join(FOREIGN, 'otlp-openinference-langgraph.json')] });
  const runIds = report.imported.flatMap((f) => f.runs);
  let picked: { runId: string; steps: number; errored: string } | null = null;
  for (const runId of runIds) {
    const detail = await callApi(tb, 'getRun', { runId });
    const errored = detail.steps.find((s) => s.status === 'error');
    if (errored) picked = { runId, steps: detail.steps.length, errored: errored.step_id };
  }
  expect(picked, 'the OTLP fixture holds a run with a failed span').not.toBeNull();
  const big = runIds[0];
  const bigDetail = await callApi(tb, 'getRun', { runId: big });
  await app.goto(`${tb.url}#/run/${encodeURIComponent(big)}`);
  await expect(app.getByTestId('waterfall')).toHaveAttribute('data-row-count', String(bigDetail.steps.length));
  await screenshot(app, 'waterfall-otlp-openinference');
  await app.goto(`${tb.url}#/run/${encodeURIComponent(picked!.runId)}`);
  await expect(app.getByTestId('waterfall').locator(`.wf-row[data-step-id="${picked!.errored}"]`)).toHaveClass(/look-(error|blamed|symptom)/);
});
