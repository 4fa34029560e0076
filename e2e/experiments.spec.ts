import type { Page } from '@playwright/test';
import { callApi, expect, screenshot, test } from './fixtures';
import { correctedPlan } from '../src-main/demo/research-team';
import type { TbServer } from './tb-server';
import { writeTrace } from './trace-writer';

/** The light screenshot, and the same view in the dark theme beside it. */
async function screenshotBothThemes(page: Page, name: string) {
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(15, 18, 24)');
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(246, 247, 249)');
}

/** The demo's failing research-team run: its planner measures cities by the wrong column. */
async function failingResearchRun(tb: TbServer) {
  const runs = await callApi(tb, 'listRuns', { pipeline: 'research-team' });
  const failing = runs.find((r) => r.verdict?.pass === false && !r.forked);
  expect(failing, 'the demo records a failing research-team run').toBeTruthy();
  const detail = await callApi(tb, 'getRun', { runId: failing!.run_id });
  const planner = detail.steps.find((s) => s.replay_key === 'planner#0')!;
  expect(planner, 'the run has a planner step').toBeTruthy();
  return { run: detail.run, planner };
}

test('forking the failing run at the planner with the corrected plan: treatment passes, control fails, and every trial is a run', async ({ app, tb }) => {
  // Two demo servers' worth of node start-ups: four trial processes on a shared 2-core machine.
  test.setTimeout(180_000);
  const { run, planner } = await failingResearchRun(tb);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  await expect(app.getByTestId('run-workbench')).toHaveAttribute('data-run-id', run.run_id);

  // Select the planner and fork from it.
  await app.locator(`.step-row[data-step-id="${planner.step_id}"]`).click();
  const stepPanel = app.getByTestId('step-panel');
  await expect(stepPanel).toHaveAttribute('data-step-id', planner.step_id);
  await stepPanel.getByTestId('fork-from-here').click();

  const editor = app.getByTestId('fork-editor');
  await expect(editor).toBeVisible();
  const output = editor.getByTestId('fork-edit-output');
  // Prefilled with the recorded output, pretty-printed.
  await expect(output).toHaveValue(JSON.stringify(planner.output, null, 2));
  await expect(editor.getByTestId('fork-edit-check')).toContainText('same as the recording');

  // A typo is caught as it is typed, with where it is; Start stays off.
  await output.fill('{"country": "Aurelia", "measure": "population" "op": ">"}');
  await expect(editor.getByTestId('fork-edit-check')).toContainText(/Invalid JSON at line 1, column \d+/);
  await expect(output).toHaveAttribute('aria-invalid', 'true');
  await expect(editor.getByTestId('fork-start')).toBeDisabled();

  // The corrected plan.
  await output.fill(JSON.stringify(correctedPlan(), null, 2));
  await expect(editor.getByTestId('fork-edit-check')).toContainText('Valid JSON');
  await expect(editor.getByTestId('fork-edit-check')).toContainText('differs from the recording');
  // The edit survives a look at the graph.
  await app.getByRole('tab', { name: 'Step graph' }).click();
  await expect(editor).toHaveCount(0);
  await app.getByRole('tab', { name: 'Experiments' }).click();
  await expect(output).toHaveValue(JSON.stringify(correctedPlan(), null, 2));
  await editor.getByTestId('fork-n').fill('2');
  // parallel 1: trials one at a time, so that progress can be watched.
  await editor.getByLabel('Parallel trials').fill('1');

  // The estimate: every step after the planner re-runs live, in 4 trials.
  const estimate = editor.getByTestId('fork-estimate');
  await expect(estimate).toContainText('(2 treatment + 2 control)');
  const downstream = run.steps - 1;
  await expect(estimate.getByTestId('estimate-downstream')).toHaveText(`${downstream} steps`);

  // Safety: the exact recorded command is shown, and Start needs its approval.
  const command = editor.getByTestId('fork-command');
  await expect(command).toContainText(run.entry!.command.slice(-4).join(' '));
  // The approval is bound to what is shown: the estimate's hash is displayed, and Start sends it.
  const shown = await callApi(tb, 'estimateExperiment', { runId: run.run_id, at: 'planner#0', edit: { kind: 'output', output: planner.output }, n: 2 });
  await expect(command).toContainText(`approval ${shown.approval!.sha.slice(0, 16)}`);
  await expect(editor.getByTestId('fork-start')).toBeDisabled();
  await editor.getByTestId('fork-approve').check();
  await expect(editor.getByTestId('fork-start')).toBeEnabled();
  await expect(editor.getByTestId('fork-start')).toHaveText('Start 4 trials');
  // The screenshot shows the checked edit down to the approved command and Start.
  await editor.getByTestId('fork-edit-check').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await screenshotBothThemes(app, 'fork-editor');

  await editor.getByTestId('fork-start').click();

  // The scoreboard opens at once and follows the experiment live.
  const board = app.getByTestId('experiment-scoreboard');
  await expect(board).toBeVisible();
  await expect(app).toHaveURL(/tab=experiments.*exp=exp-/);
  const experimentId = (await board.getAttribute('data-experiment-id'))!;
  if ((await board.getAttribute('data-status')) === 'running') {
    await expect(board.getByTestId('experiment-progress')).toBeVisible();
    await expect(board.getByRole('progressbar', { name: 'treatment trials finished' })).toHaveAttribute('aria-valuemax', '2');
    await screenshot(app, 'experiment-progress');
  }
  await expect(board).toHaveAttribute('data-status', 'done', { timeout: 150_000 });
  await expect(board.getByTestId('experiment-progress')).toHaveCount(0);

  // Control keeps the wrong plan and must fail every time; the demo's treatment passes ≥ 94% of trials.
  await expect(board.getByTestId('arm-control-split')).toHaveText('0/2');
  await expect(board.getByTestId('arm-treatment-split')).toHaveText(/^[12]\/2$/);
  await expect(board.getByTestId('experiment-p')).toContainText("Fisher's exact test, two-sided");
  await expect(board.getByTestId('small-n')).toHaveText('small N: directional evidence');
  await expect(board.getByTestId('arm-chart').locator('.recharts-errorBar').first()).toBeAttached();
  await expect(board.getByTestId('trial-row')).toHaveCount(4);
  await expect(board.locator('[data-testid="trial-row"][data-arm="control"][data-outcome="fail"]')).toHaveCount(2);
  const summary = await callApi(tb, 'getExperiment', { experimentId });
  expect(summary.control).toMatchObject({ passed: 0, trials: 2 });
  expect(summary.treatment.passed).toBeGreaterThanOrEqual(1);
  await board.getByTestId('experiment-finding').scrollIntoViewIfNeeded();
  await screenshotBothThemes(app, 'experiment-scoreboard');

  // The experiment is a branch of the run in the step graph, hanging off the planner.
  await app.getByRole('tab', { name: 'Step graph' }).click();
  const branch = app.locator(`[data-testid="fork-branch"][data-experiment-id="${experimentId}"]`);
  await expect(branch).toBeVisible();
  await expect(branch).toContainText(`treatment ${summary.treatment.passed}/2 · control 0/2`);
  await expect(app.locator('.react-flow__edge.edge-fork')).toHaveCount(1);
  await screenshotBothThemes(app, 'graph-fork-branches');

  // The branch opens the scoreboard; the run's Experiments tab lists it; the global list too.
  await branch.click();
  await expect(board).toHaveAttribute('data-experiment-id', experimentId);
  await board.getByRole('button', { name: '← Experiments' }).click();
  await expect(app.getByTestId('run-experiments').getByTestId('experiment-row')).toHaveCount(1);
  await app.getByRole('button', { name: 'Experiments', exact: true }).click();
  await expect(app.getByTestId('experiments-view').locator(`[data-experiment-id="${experimentId}"]`)).toBeVisible();
  await screenshot(app, 'experiments-list');
  await app.getByTestId('experiments-view').locator(`[data-experiment-id="${experimentId}"]`).click();
  await expect(board).toHaveAttribute('data-experiment-id', experimentId);

  // A trial is a run of its own: it opens in the workbench, with its provenance.
  const trial = summary.trials.find((t) => t.arm === 'treatment' && t.outcome === 'pass')!;
  await board.getByRole('button', { name: `Open the run of treatment trial ${trial.trial}` }).click();
  const workbench = app.getByTestId('run-workbench');
  await expect(workbench).toHaveAttribute('data-run-id', trial.run_id);
  const provenance = app.getByTestId('fork-provenance');
  await expect(provenance).toContainText('treatment');
  await expect(provenance).toContainText(experimentId);
  await expect(app.getByTestId('run-verdict')).toContainText('verdict: pass');
});

test('a run without a recorded entry command is view-only: the editor opens but offers no Start', async ({ app, tb }) => {
  // Written like a trace from an SDK that records no entry command.
  const { runId } = writeTrace(tb.inbox, {
    pipeline: 'no-entry',
    verdict: { pass: false, detail: 'wrong' },
    steps: [{ id: 'n1', parent: null, name: 'plan', type: 'llm', input: { q: 1 }, output: { a: 1 } }],
  });
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?step=n1`);
  await expect(app.getByTestId('step-panel')).toHaveAttribute('data-step-id', 'n1');
  await app.getByTestId('step-panel').getByTestId('fork-from-here').click();
  const editor = app.getByTestId('fork-editor');
  await expect(editor.getByTestId('fork-view-only')).toContainText('this run has no recorded entry command');
  await expect(editor.getByTestId('fork-edit-output')).toHaveValue('{\n  "a": 1\n}');
  await expect(editor.getByTestId('fork-start')).toHaveCount(0);
  await expect(editor.getByTestId('fork-approve')).toHaveCount(0);
});

test('confirming blame by counterfactual transplants the passing run’s outputs and ranks the candidates by measured effect', async ({ app, tb }) => {
  test.setTimeout(180_000);
  const { run } = await failingResearchRun(tb);
  const blame = await callApi(tb, 'blameRun', { runId: run.run_id });
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}`);
  const section = app.getByTestId('confirm-blame-section');
  await section.getByRole('button', { name: /Confirm blame by counterfactual/ }).click();
  const confirm = section.getByTestId('confirm-blame');
  await confirm.getByLabel('N per arm').fill('2');
  // The command is shown and must be approved first.
  await expect(confirm).toContainText(run.entry!.command.slice(-2).join(' '));
  await expect(confirm.getByTestId('confirm-blame-start')).toBeDisabled();
  await confirm.getByTestId('confirm-approve').check();
  await confirm.getByTestId('confirm-blame-start').click();
  await expect(confirm.getByTestId('confirm-blame-start')).toHaveText('Confirming…');

  const result = confirm.getByTestId('confirm-result');
  await expect(result).toBeVisible({ timeout: 150_000 });
  const rows = result.getByTestId('confirm-candidate');
  await expect(rows.first()).toBeVisible();
  // Every blamed step is a candidate; tested ones carry a measured effect and a BH-adjusted p.
  expect(await rows.count()).toBeGreaterThanOrEqual(blame.blamed.length);
  await expect(rows.filter({ hasText: blame.blamed[0].name }).first()).toContainText(/(pts|not tested)/);
  await expect(result.getByTestId('confirm-root-cause')).toBeVisible();
  // The measured effect also shows on the blamed step's card itself.
  await expect(app.getByTestId('blamed-step')).toContainText(/counterfactual/);
  await result.scrollIntoViewIfNeeded();
  await screenshotBothThemes(app, 'confirm-blame');
});
