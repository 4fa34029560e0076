import path from 'node:path';
import { AUTO_BLAME_MAX_STEPS } from '../src-shared/analysis';
import { callApi, expect, screenshot, test } from './fixtures';
import { loopRunSpec, writeTrace } from './trace-writer';

test('a run too large to blame unasked opens without a blame, says what blaming it takes, and is blamed when asked', async ({ app, tb }) => {
  const steps = AUTO_BLAME_MAX_STEPS + 1;
  const spec = loopRunSpec('huge-loop', steps, 'huge-loop-run');
  // A failing last step, so the blame asked for has something to say.
  spec.steps[spec.steps.length - 1].error = { type: 'TimeoutError', message: 'the search service timed out' };
  const { file, runId } = writeTrace(path.join(tb.home, 'generated'), spec);
  const report = await callApi(tb, 'importPaths', { paths: [file] });
  expect(report.blame_deferred).toEqual([{ run_id: runId, steps }]);

  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}`);
  await expect(app.getByTestId('waterfall')).toBeVisible({ timeout: 60_000 });
  const offer = app.getByTestId('blame-deferred');
  await expect(offer).toContainText(`This run has ${steps.toLocaleString('en-US')} steps`);
  // Nothing was blamed behind the user's back: the engine holds no blame of it.
  expect((await callApi(tb, 'listRuns', {})).find((r) => r.run_id === runId)?.blame_score).toBeNull();
  await screenshot(app, 'large-run-blame-offer');

  await offer.getByRole('button', { name: 'Blame this run' }).click();
  const verdict = app.getByTestId('blame-verdict');
  await expect(verdict).toContainText('Failed', { timeout: 120_000 });
  await expect(app.getByTestId('blame-deferred')).toHaveCount(0);
  await screenshot(app, 'large-run-blamed');

  // Opened again, it offers again (a stored blame is not taken on the list's word); marking it failed is asking too:
  // the mark and the blame it brings are shown.
  await app.reload();
  await expect(app.getByTestId('blame-deferred')).toBeVisible({ timeout: 60_000 });
  await app.getByTestId('mark-failed-button').click();
  await app.getByTestId('mark-failed-dialog').getByTestId('mark-failed-confirm').click();
  await expect(app.getByTestId('blame-verdict')).toContainText('Failed (marked by you).', { timeout: 120_000 });
  await expect(app.getByTestId('marked-failed')).toBeVisible();
});
