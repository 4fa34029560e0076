import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { callApi, expect, runRows, screenshot, test } from './fixtures';
import { writeTrace } from './trace-writer';
import { exportOtlp } from '../src-main/engine/ingest/foreign/index';
import { foldRecords } from '../src-main/engine/ingest/native/fold-records';
import { syntheticRunRecords } from '../test/support/synthetic-trace';

test('an engineer opens the UI and sees the demo runs, healthy and failing', async ({ app, tb }) => {
  const runs = await callApi(tb, 'listRuns', {});
  expect(runs.length).toBeGreaterThanOrEqual(6);
  await expect(runRows(app)).toHaveCount(runs.length);
  await expect(app.locator('.run-table .status-failed').first()).toBeVisible();
  await expect(app.locator('.run-table .status-healthy').first()).toBeVisible();
  for (const run of runs) await expect(app.locator(`[data-run-id="${run.run_id}"]`)).toBeVisible();
  await screenshot(app, 'runs-list');

  await app.getByRole('button', { name: 'Timeline' }).click();
  await expect(app.locator('.timeline-row')).toHaveCount(runs.length);
  await expect(app.locator('.timeline-group').first()).toBeVisible();
  await screenshot(app, 'runs-timeline');
});

test('runs hours apart: the timeline cuts the idle time out, so each run is a bar, not a 1 px tick', async ({ app, tb }) => {
  const H = 3_600_000;
  const base = Date.now() - 40 * H;
  const step = { id: 's', parent: null, name: 'work', durationMs: 4_000 };
  const files = [0, 0.01, 38].map((h, i) =>
    writeTrace(path.join(tb.home, 'generated'), { runId: `spread-${i}`, pipeline: 'spread-out', startedAt: base + h * H, steps: [step] }),
  );
  await callApi(tb, 'importPaths', { paths: files.map((f) => f.file) });
  await app.goto(`${tb.url}#/runs`);
  await app.getByPlaceholder(/Search runs/).fill('spread-out');
  await app.getByRole('button', { name: 'Timeline' }).click();
  await expect(app.locator('.timeline-row')).toHaveCount(3);
  const cut = app.getByTestId('timeline-break');
  await expect(cut).toHaveCount(1);
  await expect(cut).toHaveAttribute('title', /left out of the axis/);
  const bar = (await app.locator('.timeline-row[data-run-id="spread-0"] .timeline-bar').boundingBox())!;
  const track = (await app.locator('.timeline-row[data-run-id="spread-0"] .timeline-track').boundingBox())!;
  // A 4 s run among 38 h: on a linear axis it would be 0.003 % of the track.
  expect(bar.width / track.width).toBeGreaterThan(0.05);
  const last = (await app.locator('.timeline-row[data-run-id="spread-2"] .timeline-bar').boundingBox())!;
  expect(last.x).toBeGreaterThan(bar.x + bar.width);
  await screenshot(app, 'runs-timeline-spread');
});

test('filtering to failed runs shows only failed runs, and the link keeps the filter', async ({ app, tb }) => {
  const all = await callApi(tb, 'listRuns', {});
  const failed = await callApi(tb, 'listRuns', { filter: 'failed' });
  expect(failed.length).toBeGreaterThan(0);
  expect(failed.length).toBeLessThan(all.length);
  await expect(runRows(app)).toHaveCount(all.length);

  await app.getByRole('button', { name: 'Failed', exact: true }).click();
  await expect(runRows(app)).toHaveCount(failed.length);
  for (const run of failed) await expect(app.locator(`[data-run-id="${run.run_id}"]`)).toBeVisible();
  await expect(app).toHaveURL(/#\/runs\?filter=failed/);
  await screenshot(app, 'runs-failed');

  await app.reload();
  await expect(app.getByRole('button', { name: 'Failed', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(runRows(app)).toHaveCount(failed.length);
});

test('searching narrows the runs list to matching runs', async ({ app, tb }) => {
  const all = await callApi(tb, 'listRuns', {});
  const target = all[0];
  await expect(runRows(app)).toHaveCount(all.length);
  await app.getByLabel('Search runs').fill(target.run_id.slice(0, 12));
  await expect(app.locator(`[data-run-id="${target.run_id}"]`)).toBeVisible();
  await expect(runRows(app)).toHaveCount((await callApi(tb, 'listRuns', { search: target.run_id.slice(0, 12) })).length);
});

test('a run written into the inbox while the page is open appears without a reload', async ({ app, tb }) => {
  const before = await callApi(tb, 'listRuns', {});
  await expect(runRows(app)).toHaveCount(before.length);
  const { runId } = writeTrace(tb.inbox, {
    pipeline: 'late-arrival',
    input: { question: 'Is the watcher live?' },
    output: 'yes',
    steps: [
      { id: 's1', parent: null, name: 'plan', type: 'prompt', input: 'plan it', output: 'ok' },
      { id: 's2', parent: 's1', name: 'answer', type: 'llm', input: 'answer', output: 'yes' },
    ],
  });
  const row = app.locator(`[data-run-id="${runId}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('late-arrival');
  await expect(runRows(app)).toHaveCount(before.length + 1);
});

test('a pipeline recorded with the SDK while the page is open appears within a second, without a reload', async ({ app, tb }) => {
  await expect(runRows(app).first()).toBeVisible();
  const script = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'support/sdk-pipeline.ts');
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, TRACEBACK_HOME: tb.home }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  // Measured from the moment the recording process has finished writing.
  await expect(app.locator('[data-run-id]', { hasText: 'live-sdk-pipeline' })).toBeVisible({ timeout: 1000 });
});

test('a broken trace file shows up as an import problem with its file and line', async ({ app, tb }) => {
  await expect(runRows(app).first()).toBeVisible();
  const file = path.join(tb.inbox, 'broken-run.jsonl');
  const good = JSON.stringify({ type: 'run-start', v: '1.0', run_id: 'broken-1', pipeline: 'broken', ts: Date.now() });
  fs.writeFileSync(file, `${good}\n{"type": "step-start", oops\n`);
  const banner = app.getByRole('region', { name: 'Import problems' });
  await expect(banner).toBeVisible();
  await banner.getByRole('button').first().click();
  await expect(banner).toContainText('broken-run.jsonl:2');
  await screenshot(app, 'runs-import-errors');
});

test('a big OTLP file dropped into the inbox shows how far its import has got, and Cancel stops it', async ({ app, tb }) => {
  await expect(runRows(app).first()).toBeVisible();
  // About 30 MB: read twice and stored over a few seconds, long enough to watch and to cancel.
  const otlp = exportOtlp(foldRecords(syntheticRunRecords({ runId: 'big-otlp-import', steps: 30_000 }))[0]);
  const staged = path.join(tb.home, 'big-otlp.json');
  fs.writeFileSync(staged, JSON.stringify(otlp));
  // Renamed in, so the watcher sees the whole file at once.
  fs.renameSync(staged, path.join(tb.inbox, 'big-otlp.json'));
  const banner = app.getByRole('region', { name: 'Import in progress' });
  await expect(banner).toContainText(/Importing big-otlp\.json: (reading spans|storing steps) \d+% \(/, { timeout: 30_000 });
  await expect(banner.getByRole('progressbar', { name: 'Import progress' })).toBeVisible();
  await screenshot(app, 'runs-import-progress');
  await banner.getByRole('button', { name: 'Cancel' }).click();
  await expect(banner).toBeHidden({ timeout: 15_000 });
  const problems = app.getByRole('region', { name: 'Import problems' });
  await problems.getByRole('button').first().click();
  await expect(problems).toContainText('import cancelled at byte');
  await screenshot(app, 'runs-import-cancelled');
});
