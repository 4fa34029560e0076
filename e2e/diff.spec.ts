import { callApi, expect, runRows, screenshot, test } from './fixtures';

test('comparing a healthy and a failed run of one pipeline shows aligned steps and the regressed step', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', {});
  const failed = runs.find((r) => r.status === 'error' || r.verdict?.pass === false);
  const healthy = runs.find((r) => r.pipeline === failed?.pipeline && r.run_id !== failed?.run_id && r.verdict?.pass !== false && r.status === 'ok');
  expect(failed && healthy, 'a healthy and a failed run of one pipeline').toBeTruthy();
  const diff = await callApi(tb, 'diffRuns', { runA: healthy!.run_id, runB: failed!.run_id });

  await expect(runRows(app).first()).toBeVisible();
  // Tick the baseline first: the first pick becomes A.
  await app.getByLabel(`Pick run ${healthy!.run_id} for comparison`).check();
  await app.getByLabel(`Pick run ${failed!.run_id} for comparison`).check();
  await app.getByRole('button', { name: 'Compare 2/2' }).click();

  const view = app.getByTestId('diff-view');
  await expect(view.getByTestId('diff-verdict')).toContainText(diff.reason.slice(0, 60));
  await expect(view.locator('.table-body [role="row"]').first()).toBeVisible();
  // The table is virtualized: every row that fits on screen is there.
  expect(await view.locator('.table-body [role="row"]').count()).toBeGreaterThanOrEqual(Math.min(diff.rows.length, 10));
  if (diff.step) {
    const regressed = view.locator(`.diff-row[data-key="${diff.step.key}"]`);
    await expect(regressed).toHaveClass(new RegExp(`verdict-${diff.verdict}`));
    await expect(view.getByTestId('side-by-side')).toContainText(diff.step.key);
  }
  await expect(app).toHaveURL(new RegExp(`a=${healthy!.run_id}.*b=${failed!.run_id}`));

  const other = diff.rows.find((r) => r.a && r.b && r.key !== diff.step?.key) ?? diff.rows[0];
  await view.locator(`.diff-row[data-key="${other.key}"]`).click();
  await expect(view.getByTestId('side-by-side')).toContainText(other.key);
  await expect(view.getByTestId('side-by-side').locator('.side-column')).toHaveCount(2);
  await screenshot(app, 'diff');
});
