/**
 * UI benchmark (`npx tsx e2e/bench-ui.ts`; needs the built renderer in
 * out/renderer and /usr/bin/chromium). Imports a 10,000-step and a
 * 100,000-step run into a temporary home, serves it, and times in headless
 * Chromium, from the click on the run to a graph and step list on screen:
 *  - goal: ≤ 1 s for 10,000 steps;
 *  - the 100,000-step run must load without freezing the page: we report the
 *    longest gap between animation frames while it loads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { makeHome, startTbServer, tb } from './tb-server';
import { loopRunSpec, writeTrace } from './trace-writer';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const GOAL_MS = 1000;

interface OpenTiming {
  /** Click → graph nodes and step rows painted. */
  interactiveMs: number;
  /** Click → blame panel filled. */
  blameMs: number;
  /** Longest gap between two animation frames while loading. */
  longestFrameGapMs: number;
}

/*
 * The in-page probes are source strings: tsx compiles this file with esbuild's
 * keepNames, whose `__name` helper does not exist inside the page.
 */

/** Runs inside the page: clicks the run and polls each frame until the views are there. */
async function openRunTimed(page: Page, runId: string): Promise<OpenTiming> {
  return page.evaluate(`(async (id) => {
    const row = document.querySelector('[data-run-id="' + CSS.escape(id) + '"]');
    if (!row) throw new Error('run ' + id + ' is not in the list');
    let last = performance.now();
    let longest = 0;
    let interactive = 0;
    const t0 = performance.now();
    row.click();
    await new Promise((resolve, reject) => {
      const deadline = t0 + 120000;
      function frame() {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        if (!interactive && document.querySelector('.react-flow__node .graph-node') && document.querySelector('.step-row')) interactive = now - t0;
        if (interactive && document.querySelector('[data-testid="blame-verdict"], .blame-panel ~ .error-note, .right-block .error-note')) return resolve();
        if (now > deadline) return reject(new Error('run did not open within 120 s'));
        requestAnimationFrame(frame);
      }
      requestAnimationFrame(frame);
    });
    return { interactiveMs: interactive, blameMs: performance.now() - t0, longestFrameGapMs: longest };
  })(${JSON.stringify(runId)})`);
}

/** Click → step panel showing that step, measured in the page. */
async function selectStepTimed(page: Page): Promise<number> {
  return page.evaluate(`(async () => {
    const rows = Array.from(document.querySelectorAll('.step-row'));
    const row = rows[Math.min(rows.length - 1, 5)];
    const id = row.dataset.stepId;
    const t0 = performance.now();
    row.click();
    await new Promise((resolve) => {
      function check() {
        if (document.querySelector('[data-testid="step-panel"][data-step-id="' + CSS.escape(id) + '"]')) resolve();
        else requestAnimationFrame(check);
      }
      check();
    });
    return performance.now() - t0;
  })()`);
}

/** Collapse an open step in the step list, then time its expand → its children listed and the graph relaid. */
async function expandTimed(page: Page): Promise<number | null> {
  return page.evaluate(`(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const rowOf = (id) => document.querySelector('.step-row[data-step-id="' + CSS.escape(id) + '"]');
    const open = document.querySelector('.step-row[aria-expanded="true"][aria-level="2"]') || document.querySelector('.step-row[aria-expanded="true"]');
    if (!open) return null;
    const id = open.dataset.stepId;
    open.querySelector('.tree-toggle').click();
    while (rowOf(id).getAttribute('aria-expanded') !== 'false') await frame();
    const t0 = performance.now();
    rowOf(id).querySelector('.tree-toggle').click();
    while (rowOf(id).getAttribute('aria-expanded') !== 'true') await frame();
    await frame();
    return performance.now() - t0;
  })()`);
}

export async function benchUi(): Promise<{ lines: string[] }> {
  const lines: string[] = [];
  const home = makeHome('tb-bench-ui-');
  const traces = path.join(home, 'generated');
  const sizes = [10_000, 100_000];
  const runIds: Record<number, string> = {};
  for (const n of sizes) {
    const { file, runId } = writeTrace(traces, loopRunSpec(`bench-${n}`, n, `bench-${n}-steps`));
    runIds[n] = runId;
    const t = Date.now();
    tb(home, ['import', file]);
    lines.push(`import ${n.toLocaleString('en-US')}-step run (${(fs.statSync(file).size / 1e6).toFixed(1)} MB): ${Date.now() - t} ms (tb import, including CLI start)`);
  }
  const server = await startTbServer({ home, demo: false });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    for (const n of sizes) {
      // First open: the engine reads and blames the run for the first time.
      await page.goto('about:blank');
      await page.goto(`${server.url}#/runs`);
      await page.locator(`[data-run-id="${runIds[n]}"]`).waitFor();
      const cold = await openRunTimed(page, runIds[n]);
      // Second open in a fresh page: nothing cached in the renderer.
      await page.goto('about:blank');
      await page.goto(`${server.url}#/runs`);
      await page.locator(`[data-run-id="${runIds[n]}"]`).waitFor();
      const warm = await openRunTimed(page, runIds[n]);
      const nodes = await page.locator('.graph-node').count();
      const rows = await page.locator('.step-row').count();
      const select = await selectStepTimed(page);
      const expand = await expandTimed(page);
      const label = `${n.toLocaleString('en-US')}-step run`;
      const verdict = n === 10_000 ? (warm.interactiveMs <= GOAL_MS ? `meets the ${GOAL_MS} ms goal` : `MISSES the ${GOAL_MS} ms goal`) : '';
      lines.push(
        `${label}: click → graph + step list ${Math.round(cold.interactiveMs)} ms first open, ${Math.round(warm.interactiveMs)} ms second open (fresh page) ${verdict}`.trim(),
        `${label}: click → blame shown ${Math.round(cold.blameMs)} ms first open, ${Math.round(warm.blameMs)} ms second open`,
        `${label}: longest frame gap while loading ${Math.round(Math.max(cold.longestFrameGapMs, warm.longestFrameGapMs))} ms; ${nodes} graph nodes and ${rows} list rows in the DOM`,
        `${label}: select a step → panel ${Math.round(select)} ms; expand a collapsed step → children listed ${expand === null ? 'n/a' : `${Math.round(expand)} ms`}`,
      );
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
  return { lines };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  benchUi().then(
    ({ lines }) => {
      for (const l of lines) console.log(l);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
