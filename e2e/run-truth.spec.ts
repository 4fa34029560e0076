import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { callApi, expect, runRows, screenshot, test } from './fixtures';
import type { TbServer } from './tb-server';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/foreign');

/** Drops a committed foreign trace into the inbox and waits until the watcher has imported its runs. */
async function importIntoInbox(tb: TbServer, name: string, runs: number): Promise<void> {
  fs.copyFileSync(path.join(FIXTURES, name), path.join(tb.inbox, name));
  await expect
    .poll(async () => (await callApi(tb, 'listRuns', { filter: 'imported' })).filter((r) => r.pipeline.length > 0).length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(runs);
}

async function bothThemes(app: Page, name: string): Promise<void> {
  await app.emulateMedia({ colorScheme: 'light' });
  await screenshot(app, `${name}-light`);
  await app.emulateMedia({ colorScheme: 'dark' });
  await screenshot(app, `${name}-dark`);
  await app.emulateMedia({ colorScheme: 'light' });
}

test('an imported OTLP run that failed reads failed in the header, the runs list and the blame panel, and its culprit reads blamed everywhere', async ({ app, tb }) => {
  await importIntoInbox(tb, 'otlp-traceloop-langgraph.jsonl', 4);
  const imported = await callApi(tb, 'listRuns', { filter: 'imported' });
  // The run that ended "ok" but whose client dropped the failing span: the case that used to read HEALTHY.
  const run = imported.find((r) => r.status === 'ok' && r.steps > 10)!;
  expect(run, 'the 22-step OTLP run').toBeDefined();
  const blame = await callApi(tb, 'blameRun', { runId: run.run_id });
  expect(blame.detection?.status).toBe('failed');
  const culprit = blame.blamed[0];

  // Runs list: failed, with a marker for the import warning about the dropped span.
  await app.goto(`${tb.url}#/?filter=imported`);
  const row = runRows(app).and(app.locator(`[data-run-id="${run.run_id}"]`));
  await expect(row.getByTestId('run-state')).toHaveText('failed');
  await expect(row.getByTestId('run-import-marker')).toContainText('1 import');
  await bothThemes(app, 'run-truth-list');

  await row.click();
  await expect(app.getByTestId('run-workbench')).toHaveAttribute('data-run-id', run.run_id);
  await expect(app.locator('.run-header').getByTestId('run-state')).toHaveText('failed');
  await expect(app.getByTestId('blame-verdict')).toContainText('Failed');
  await expect(app.getByTestId('blamed-step')).toContainText(culprit.name);
  // Co-blamed only where the engine said so.
  await expect(app.getByTestId('co-blamed-step')).toHaveCount(blame.co_blamed.length);

  // The import warning reaches the run, with file and line.
  const problems = app.getByTestId('run-import-problems');
  await expect(problems).toContainText('1 warning');
  await problems.getByRole('button').first().click();
  await expect(problems).toContainText('otlp-traceloop-langgraph.jsonl:2');
  await expect(problems).toContainText('failing call left no trace');

  // The culprit in the step list and the step panel: "blamed", never "ok · 1.00".
  await app.getByTestId('blamed-step').locator('.blamed-name').click();
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', culprit.step_id);
  await expect(app.getByTestId('step-role')).toContainText('blamed');
  await expect(app.getByTestId('step-blamed-note')).toContainText(culprit.rule);
  await expect(app.locator(`.step-row[data-step-id="${culprit.step_id}"]`)).toHaveClass(/look-blamed/);
  await expect(app.locator(`.step-row[data-step-id="${culprit.step_id}"] .row-role`)).toHaveText('blamed');
  await bothThemes(app, 'run-truth-workbench');
  await app.setViewportSize({ width: 1280, height: 720 });
  await screenshot(app, 'run-truth-workbench-1280');

  // The health chart leads with the culprit in red, not an all-green chart.
  await app.getByRole('tab', { name: 'Charts' }).click();
  await expect(app.getByTestId('chart-scores')).toContainText('[blamed]');
  await app.getByTestId('chart-scores').scrollIntoViewIfNeeded();
  await screenshot(app, 'run-truth-charts-1280');
});

test('a trace file with one bad line and no steps does not read healthy: the list marks it and the run links to its errors', async ({ app, tb }) => {
  await expect(runRows(app).first()).toBeVisible();
  const file = path.join(tb.inbox, 'half-written.jsonl');
  const start = JSON.stringify({ type: 'run-start', v: '1.0', run_id: 'half-written-1', pipeline: 'half-written', ts: Date.now() });
  const end = JSON.stringify({ type: 'run-end', run_id: 'half-written-1', status: 'ok', ts: Date.now() + 5, output: 'done' });
  fs.writeFileSync(file, `${start}\n{"type": "step-start", oops\n${end}\n`);
  const row = app.locator('.run-table [data-run-id="half-written-1"]');
  await expect(row.getByTestId('run-state')).toHaveText('import errors');
  await expect(row.getByTestId('run-import-marker')).toContainText('1 import');
  await row.click();
  await expect(app.locator('.run-header').getByTestId('run-state')).toHaveText('import errors');
  const problems = app.getByTestId('run-import-problems');
  // Open by default: the run is judged on part of its trace.
  await expect(problems).toContainText('half-written.jsonl:2');
  await expect(problems).toContainText('1 import error');
  // The blame panel does not call it healthy either.
  await expect(app.getByTestId('blame-verdict')).not.toContainText('Healthy run');
  await screenshot(app, 'run-truth-bad-line');
});

test('LangChain runs with UUIDv7 ids that share their first 10 characters get distinct short ids, full on hover', async ({ app, tb }) => {
  await importIntoInbox(tb, 'langchain-run-tree-langgraph.json', 3);
  await app.goto(`${tb.url}#/?filter=imported`);
  const ids = (await callApi(tb, 'listRuns', { filter: 'imported' })).map((r) => r.run_id).filter((id) => id.startsWith('01a229e2'));
  expect(ids.length).toBe(3);
  const shown: string[] = [];
  for (const id of ids) {
    const cell = app.locator(`.run-table [data-run-id="${id}"] [title="${id}"]`);
    await expect(cell).toBeVisible();
    const text = (await cell.textContent())!.trim();
    expect(text.length).toBeGreaterThanOrEqual(8);
    expect(id.startsWith(text)).toBe(true);
    shown.push(text);
  }
  expect(new Set(shown).size).toBe(3);
  await screenshot(app, 'run-truth-short-ids');
});
