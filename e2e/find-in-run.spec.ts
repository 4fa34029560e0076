import path from 'node:path';
import { callApi, expect, screenshot, test } from './fixtures';
import { writeLangGraphRun } from './support/langgraph-run';

async function openLangGraphRun(app: import('@playwright/test').Page, tb: import('./tb-server').TbServer) {
  const lg = writeLangGraphRun(path.join(tb.home, 'generated'));
  const report = await callApi(tb, 'importPaths', { paths: [lg.file] });
  const runId = report.imported[0].runs[0];
  const detail = await callApi(tb, 'getRun', { runId });
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}`);
  await expect(app.getByTestId('run-workbench')).toHaveAttribute('data-run-id', runId);
  return { lg, detail };
}

test('text copied from a step error, line breaks and all, finds that step; Enter selects it and the step panel highlights the text', async ({ app, tb }) => {
  const { lg, detail } = await openLangGraphRun(app, tb);
  const failed = detail.steps.find((s) => s.status === 'error')!;
  const find = app.getByLabel('Find in run');
  // As copied from a wrapped line in the panel: a line break where a space was.
  await find.fill(lg.errorText.replace('after 5000 ms ', 'after 5000 ms\n'));
  await expect(app.getByTestId('find-status')).toContainText('1 step');
  await expect(app.locator('.step-row')).toHaveCount(1);
  await find.press('Enter');
  const panel = app.getByTestId('step-panel');
  await expect(panel).toHaveAttribute('data-step-id', failed.step_id);
  await expect(app.getByTestId('find-status')).toContainText('1 of 1 step');
  await expect(panel.locator('mark.hl-search').first()).toBeVisible();
  await screenshot(app, 'find-in-run-error-text');
});

test('a word in many steps lists every hit with its path where names repeat, Enter and the arrows walk them, and a miss says so', async ({ app, tb }) => {
  const { detail } = await openLangGraphRun(app, tb);
  const find = app.getByLabel('Find in run');
  await find.fill('Lyon');
  const withLyon = detail.steps.filter((s) => JSON.stringify([s.name, s.input, s.output, s.error]).includes('Lyon'));
  expect(withLyon.length).toBeGreaterThan(5);
  await expect(app.getByTestId('find-status')).toContainText(`${withLyon.length} steps`);
  // weather_api occurs once per round: its rows carry their path.
  const weatherRow = app.locator('.step-row', { hasText: 'weather_api' }).first();
  await expect(weatherRow.locator('.step-row-path')).toHaveText(' in support_agent › tools');
  await find.press('Enter');
  const first = await app.getByTestId('step-panel').getAttribute('data-step-id');
  expect(first).toBe(withLyon[0].step_id);
  await find.press('Enter');
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', withLyon[1].step_id);
  await expect(app.getByTestId('find-status')).toContainText(`2 of ${withLyon.length} steps`);
  await app.getByRole('button', { name: 'Previous match' }).click();
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', withLyon[0].step_id);
  await screenshot(app, 'find-in-run-hits');

  await find.fill('Atlantis');
  await expect(app.getByTestId('find-status')).toHaveText('No step matches “Atlantis”.');
  await expect(app.locator('.step-row')).toHaveCount(0);
  await find.fill('');
  await expect(app.getByTestId('find-status')).toHaveCount(0);
});

test('the roll-up counts errors, warnings and low scores, and a click lists only those steps', async ({ app, tb }) => {
  const { detail } = await openLangGraphRun(app, tb);
  const failed = detail.steps.filter((s) => s.status === 'error');
  const errors = app.getByRole('button', { name: /^\d+ errors?$/ });
  await expect(errors).toHaveText(`${failed.length} ${failed.length === 1 ? 'error' : 'errors'}`);
  // The round that holds the timeout and the root did not fail themselves: warnings, so an "ok" parent no longer hides a failure.
  const warnings = app.getByRole('button', { name: /^\d+ warnings?$/ });
  await expect(warnings).toHaveText('2 warnings');
  await errors.click();
  await expect(errors).toHaveAttribute('aria-pressed', 'true');
  await expect(app.locator('.step-row')).toHaveCount(failed.length);
  await expect(app.locator(`.step-row[data-step-id="${failed[0].step_id}"]`)).toBeVisible();
  await warnings.click();
  await expect(app.locator('.step-row')).toHaveCount(2);
  await expect(app.locator('.step-row').first()).toContainText('support_agent');
  await screenshot(app, 'find-in-run-rollup');
  await warnings.click();
  await expect(app.locator('.step-row[aria-level="1"]')).toHaveCount(1);
});
