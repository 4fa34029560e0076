import { callApi, expect, runRows, screenshot, test } from './fixtures';

test('ticking the failed run first still makes the healthy run the baseline: the diff reads Regression and opens at the regressed step', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', {});
  const failed = runs.find((r) => r.detection === 'failed' && r.steps > 3)!;
  const healthy = runs.find((r) => r.pipeline === failed.pipeline && r.detection === 'healthy')!;
  expect(failed && healthy, 'a failed and a healthy run of one pipeline').toBeTruthy();

  await expect(runRows(app).first()).toBeVisible();
  await app.getByLabel(`Pick run ${failed.run_id} for comparison`).check();
  await app.getByLabel(`Pick run ${healthy.run_id} for comparison`).check();
  await app.getByRole('button', { name: 'Compare 2/2' }).click();
  await expect(app).toHaveURL(new RegExp(`a=${healthy.run_id}.*b=${failed.run_id}`));
  const view = app.getByTestId('diff-view');
  const diff = await callApi(tb, 'diffRuns', { runA: healthy.run_id, runB: failed.run_id });
  await expect(view.getByTestId('diff-verdict')).not.toContainText('Improvement');
  const opening = diff.step?.key ?? diff.first_divergence?.key;
  if (opening) await expect(view.locator(`.diff-row[data-key="${opening}"]`)).toBeInViewport();

  // The headers name both runs by their short ids, full on hover.
  await expect(view.locator(`.diff-heads [title="${healthy.run_id}"]`)).toBeVisible();

  // Inputs differ? Then say so.
  const [a, b] = await Promise.all([callApi(tb, 'getRun', { runId: healthy.run_id }), callApi(tb, 'getRun', { runId: failed.run_id })]);
  const differ = JSON.stringify(a.run.input) !== JSON.stringify(b.run.input);
  await expect(view.getByTestId('diff-inputs-differ')).toHaveCount(differ ? 1 : 0);

  // "changed only" hides identical rows.
  const changed = diff.rows.filter((r) => r.change !== 'same' || (r.delta !== null && Math.abs(r.delta) >= 0.005)).length;
  await view.getByLabel(/changed only/).check();
  await expect(view.locator('.table-body .diff-row')).toHaveCount(Math.min(changed, 30));
  await screenshot(app, 'diff-baseline-changed-only');

  // No badge spills onto the next row.
  for (const cell of await view.locator('.diff-badges').all()) {
    const box = (await cell.boundingBox())!;
    expect(box.height).toBeLessThanOrEqual(26);
  }

  // Swapping is the user's call.
  await view.getByRole('button', { name: '⇄ swap' }).click();
  await expect(app).toHaveURL(new RegExp(`a=${failed.run_id}.*b=${healthy.run_id}`));
  await app.setViewportSize({ width: 1280, height: 720 });
  await screenshot(app, 'diff-swapped-1280');
});
