import { expect as baseExpect, test as baseTest } from '@playwright/test';
import { callApi, expect, failedRunWithEvidence, runRows, screenshot, test } from './fixtures';
import { startTbServer } from './tb-server';

test('the runs list is one tab stop: arrow keys move between runs, Enter opens one, Space ticks it for comparison', async ({ app }) => {
  await expect(runRows(app).first()).toBeVisible();
  const ids = await runRows(app).evaluateAll((rows) => rows.slice(0, 3).map((r) => r.getAttribute('data-run-id')!));
  await app.getByRole('button', { name: 'Timeline' }).focus();
  await app.keyboard.press('Tab');
  await expect(runRows(app).first()).toBeFocused();
  // Only one row is in the tab order, and its checkbox and links are not extra stops.
  expect(await app.locator('.run-table [tabindex="0"]').count()).toBe(1);
  await app.keyboard.press('ArrowDown');
  await expect(app.locator(`.run-table [data-run-id="${ids[1]}"]`)).toBeFocused();
  await app.keyboard.press('Space');
  await expect(app.getByLabel(`Pick run ${ids[1]} for comparison`)).toBeChecked();
  await app.keyboard.press('ArrowUp');
  await expect(app.locator(`.run-table [data-run-id="${ids[0]}"]`)).toBeFocused();
  await app.keyboard.press('Tab');
  await expect(app.locator('.run-table [role="row"]:focus')).toHaveCount(0);
  await app.keyboard.press('Shift+Tab');
  await expect(app.locator(`.run-table [data-run-id="${ids[0]}"]`)).toBeFocused();
  await screenshot(app, 'runs-keyboard-focus');
  await app.keyboard.press('Enter');
  await expect(app.getByTestId('run-workbench')).toHaveAttribute('data-run-id', ids[0]);
});

test('panes are resizable by drag and by keyboard, and keep their size after a reload', async ({ app, tb }) => {
  const { run } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  const left = app.locator('.pane-left');
  await expect(left).toBeVisible();
  const before = (await left.boundingBox())!.width;
  const splitter = app.getByRole('separator', { name: 'Resize the step list' });
  const box = (await splitter.boundingBox())!;
  await app.mouse.move(box.x + 2, box.y + 200);
  await app.mouse.down();
  await app.mouse.move(box.x + 122, box.y + 200, { steps: 5 });
  await app.mouse.up();
  await expect.poll(async () => Math.round((await left.boundingBox())!.width)).toBe(Math.round(before + 120));

  // The blame / step split moves with the keyboard.
  await app.locator('.step-row').nth(1).click();
  const blame = app.locator('.blame-block');
  const h0 = (await blame.boundingBox())!.height;
  const split = app.getByRole('separator', { name: 'Resize the blame and step panels' });
  await split.focus();
  await app.keyboard.press('Shift+ArrowDown');
  await expect.poll(async () => (await blame.boundingBox())!.height).toBeGreaterThan(h0 + 40);

  await app.reload();
  await expect(left).toBeVisible();
  await expect.poll(async () => Math.round((await left.boundingBox())!.width)).toBe(Math.round(before + 120));
  await screenshot(app, 'workbench-resized');
});

test('Escape closes the Export menu and the fork editor, giving focus back', async ({ app, tb }) => {
  const { run, blame } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  const exportButton = app.getByRole('button', { name: 'Export report ▾' });
  await exportButton.click();
  await expect(app.getByTestId('export-menu')).toBeVisible();
  await app.keyboard.press('Escape');
  await expect(app.getByTestId('export-menu')).toHaveCount(0);
  await expect(exportButton).toBeFocused();
  // A click elsewhere closes it too.
  await exportButton.click();
  await app.locator('.pane-center').click({ position: { x: 200, y: 300 } });
  await expect(app.getByTestId('export-menu')).toHaveCount(0);

  await app.locator(`.step-row[data-step-id="${blame.blamed[0].step_id}"]`).click();
  await app.getByTestId('step-panel').getByTestId('fork-from-here').click();
  const editor = app.getByTestId('fork-editor');
  await expect(editor).toBeVisible();
  await editor.locator('textarea, input').first().focus();
  await app.keyboard.press('Escape');
  await expect(editor).toHaveCount(0);
});

test('at 1280×720 the run header keeps Compare, Mark as failed and Export on one line', async ({ app, tb }) => {
  await app.setViewportSize({ width: 1280, height: 720 });
  const { run } = await failedRunWithEvidence(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  const header = app.locator('.run-header');
  await expect(header).toBeVisible();
  for (const name of ['Mark as failed…', 'Export report ▾']) {
    const h = (await header.getByRole('button', { name }).boundingBox())!.height;
    expect(h, `${name} on one line`).toBeLessThan(34);
  }
  expect((await header.getByLabel('Compare with another run').boundingBox())!.height).toBeLessThan(34);
  expect((await header.boundingBox())!.height).toBeLessThan(52);
  // The workbench tabs and panel toggles do not wrap either.
  for (const b of await app.locator('.tabs button').all()) expect((await b.boundingBox())!.height).toBeLessThan(36);
  await screenshot(app, 'workbench-1280');
  const runs = await callApi(tb, 'listRuns', {});
  await app.goto(`${tb.url}#/`);
  await expect(runRows(app)).toHaveCount(Math.min(runs.length, 20), { timeout: 15_000 }).catch(() => undefined);
  expect((await app.getByRole('button', { name: /^Compare \d\/2$/ }).boundingBox())!.height).toBeLessThan(34);
  await screenshot(app, 'runs-1280');
});

baseTest('an empty store explains where traces go (inbox path to copy), what is read, and how to get demo runs', async ({ page }) => {
  const tb = await startTbServer({ demo: false });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  try {
    await page.goto(tb.url);
    const empty = page.getByTestId('empty-runs');
    await baseExpect(empty).toBeVisible();
    await baseExpect(empty.getByTestId('inbox-path')).toHaveText(tb.inbox);
    await baseExpect(empty).toContainText('OpenTelemetry OTLP/JSON');
    await baseExpect(empty).toContainText('npm run tb -- demo');
    await baseExpect(empty.getByRole('button', { name: 'copy path' })).toBeVisible();
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'runs-empty-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'runs-empty-light');
    baseExpect(errors).toEqual([]);
  } finally {
    await tb.stop();
  }
});

test("an experiment's scoreboard takes the workbench's full width; the run's other tabs bring the step list back", async ({ app, tb }) => {
  test.setTimeout(120_000);
  const runs = await callApi(tb, 'listRuns', { pipeline: 'research-team' });
  const failing = runs.find((r) => r.verdict?.pass === false)!;
  const detail = await callApi(tb, 'getRun', { runId: failing.run_id });
  const planner = detail.steps.find((s) => s.replay_key === 'planner#0')!;
  const edit = { kind: 'output' as const, output: planner.output };
  const estimate = await callApi(tb, 'estimateExperiment', { runId: failing.run_id, at: 'planner#0', edit, n: 1 });
  const xp = await callApi(tb, 'startExperiment', { runId: failing.run_id, at: 'planner#0', edit, n: 1, approve: true, approvedCommand: estimate.approval!.sha, wait: true });

  await app.goto(`${tb.url}#/run/${encodeURIComponent(failing.run_id)}?tab=experiments&exp=${encodeURIComponent(xp.experiment_id)}`);
  const center = app.locator('.pane-center');
  await expect(app.getByTestId('arm-treatment')).toBeVisible();
  await expect(app.locator('.pane-left')).toBeHidden();
  expect((await center.boundingBox())!.width).toBeGreaterThan(1400);
  await expect(app.locator('.xp-arm-table thead')).toContainText('diverged, crashed, timed out');
  await screenshot(app, 'scoreboard-full-width');
  await app.getByRole('tab', { name: 'Step graph' }).click();
  await expect(app.locator('.pane-left')).toBeVisible();
});
