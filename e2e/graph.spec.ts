import path from 'node:path';
import { callApi, expect, screenshot, test } from './fixtures';
import { writeLangGraphRun } from './support/langgraph-run';

test('a 70-step LangGraph run reads on the graph: framework glue hidden, steps chained in execution order, parallel tools side by side, data flow only for the selection until asked for all', async ({ app, tb }) => {
  const lg = writeLangGraphRun(path.join(tb.home, 'generated'));
  const report = await callApi(tb, 'importPaths', { paths: [lg.file] });
  const runId = report.imported[0].runs[0];
  const detail = await callApi(tb, 'getRun', { runId });
  expect(detail.steps.length).toBeGreaterThanOrEqual(50);
  const timeout = detail.steps.find((s) => s.status === 'error')!;
  const lookup = detail.steps.find((s) => s.parent_id === timeout.parent_id && s.name === 'lookup_order')!;
  await app.goto(`${tb.url}#/run/${encodeURIComponent(runId)}?tab=graph&step=${encodeURIComponent(timeout.step_id)}`);

  const graph = app.getByTestId('step-graph');
  await expect(graph.locator(`.graph-node[data-step-id="${timeout.step_id}"]`)).toBeVisible();
  // Wrappers are out of the graph (and counted in the legend); real steps stay.
  // A wrapper the blame names (its culprit or lineage path) stays.
  const blame = await callApi(tb, 'blameRun', { runId });
  const named = new Set([...blame.lineage_path, ...blame.blamed.slice(0, 1).map((b) => b.step_id)]);
  const isWrapper = (name: string) => /^(__start__|ChannelWrite|RunnableSequence|RunnableLambda|Branch<)/.test(name);
  const hidden = detail.steps.filter((s) => isWrapper(s.name) && !named.has(s.step_id));
  expect(hidden.length).toBeGreaterThan(20);
  await expect(graph.locator('.graph-legend')).toContainText(`framework steps (${hidden.length} hidden)`);
  await expect(graph).toHaveAttribute('data-node-count', String(detail.steps.length - hidden.length));
  for (const s of hidden.slice(0, 5)) await expect(graph.locator(`.graph-node[data-step-id="${s.step_id}"]`)).toHaveCount(0);
  // Execution order: sequence arrows; the two tools of the last round ran in parallel and sit side by side.
  await expect(graph.locator('.react-flow__edge.edge-seq').first()).toBeAttached();
  const a = (await graph.locator(`.graph-node[data-step-id="${timeout.step_id}"]`).boundingBox())!;
  const b = (await graph.locator(`.graph-node[data-step-id="${lookup.step_id}"]`).boundingBox())!;
  expect(Math.abs(a.y - b.y)).toBeLessThan(2);
  expect(Math.abs(a.x - b.x)).toBeGreaterThan(a.width * 0.9);
  await screenshot(app, 'graph-langgraph-70-steps');

  // Data flow: only the selected step's until "all data flow" is ticked.
  const flows = graph.locator('.react-flow__edge.edge-dataflow');
  const some = await flows.count();
  const all = graph.getByRole('checkbox', { name: /all data flow/ });
  if (await all.count()) {
    await all.check();
    await expect.poll(() => flows.count()).toBeGreaterThanOrEqual(some);
    await all.uncheck();
    await expect(flows).toHaveCount(some);
  }

  // Framework steps come back on demand.
  await graph.getByRole('checkbox', { name: /framework steps/ }).check();
  await expect(graph).toHaveAttribute('data-node-count', String(detail.steps.length));
  await screenshot(app, 'graph-langgraph-with-framework-steps');
});

test('the blame lineage path on a demo run is drawn in lanes beside the nodes, not through their names', async ({ app, tb }) => {
  const failed = await callApi(tb, 'listRuns', { filter: 'failed' });
  const run = failed.find((r) => r.pipeline === 'research-team')!;
  const blame = await callApi(tb, 'blameRun', { runId: run.run_id });
  expect(blame.lineage_path.length).toBeGreaterThan(1);
  await app.goto(`${tb.url}#/run/${encodeURIComponent(run.run_id)}?tab=graph`);
  const path = app.locator('.react-flow__edge.edge-lineage path.react-flow__edge-path').first();
  await expect(path).toBeAttached();
  // Every vertical run of the path lies right of every node it passes.
  const clear = await app.evaluate(() => {
    const nodes = Array.from(document.querySelectorAll('.react-flow__node-step')).map((n) => n.getBoundingClientRect());
    return Array.from(document.querySelectorAll('.react-flow__edge.edge-lineage path.react-flow__edge-path')).every((p) => {
      const box = (p as SVGPathElement).getBoundingClientRect();
      const laneX = box.right - 1;
      return nodes.every((n) => !(laneX > n.left && laneX < n.right && box.bottom > n.top && box.top < n.bottom));
    });
  });
  expect(clear).toBe(true);
  await screenshot(app, 'graph-lineage-routed');
});
