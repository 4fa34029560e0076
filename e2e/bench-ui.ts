/**
 * UI benchmark (`npm run bench:ui`; needs /usr/bin/chromium). Imports a
 * 10,000-step and a 100,000-step run into a temporary home, serves it, and
 * measures in headless Chromium:
 *  - click on the run → its first view (waterfall or graph) and the step list
 *    painted: goal ≤ 1 s for 10,000 steps, ≤ 1.5 s (issue 14) and ≤ 3 s (issue 13)
 *    for 100,000; BENCH_UI_SIZES=1000000 also opens a 1,000,000-step run (no goal); BENCH_UI_OUTPUT_BYTES=1000 pads every output to ~1 kB;
 *  - the 100,000-step run fully expanded (Expand all: 100,000 rows), scripted
 *    scrolling of the waterfall and of the step list, frames counted with
 *    requestAnimationFrame: goal ≥ 50 fps;
 *  - the longest gap between animation frames while a run loads, and how many
 *    graph nodes / rows are in the DOM (the graph never draws thousands).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { makeHome, startTbServer, tb, type TbServer } from './tb-server';
import { CALL_PREFIX, TOKEN_HEADER } from '../src-shared/http-protocol';
import { loopRunSpec, writeTrace } from './trace-writer';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const GOAL_MS = 1000;
/** Issue 13: a 100,000-step run first paints within 3 s; issue 14: it is interactive within 1.5 s. */
const BIG_FIRST_PAINT_GOAL_MS = 3000;
const BIG_INTERACTIVE_GOAL_MS = 1500;
/** Above this the whole-run getRun baseline is not taken (a 1,000,000-step run is ~430 MB of JSON). */
const WHOLE_RUN_BASELINE_MAX = 200_000;
const SCROLL_GOAL_FPS = 50;

interface OpenTiming {
  /** Click → graph nodes and step rows painted. */
  interactiveMs: number;
  /** Click → blame panel filled (for a run over AUTO_BLAME_MAX_STEPS steps, its "Blame this run" offer). */
  blameMs: number;
  /** Longest gap between two animation frames while loading. */
  longestFrameGapMs: number;
  /** The API calls made before the views were painted: when each was answered, and the engine's and serialization's share (the server's Server-Timing). */
  calls: string;
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
      const deadline = t0 + 600000;
      function frame() {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        if (!interactive && document.querySelector('.react-flow__node .graph-node, .wf-row .wf-bar') && document.querySelector('.step-row')) interactive = now - t0;
        if (interactive && document.querySelector('[data-testid="blame-verdict"], [data-testid="blame-deferred"], .blame-panel ~ .error-note, .right-block .error-note')) return resolve();
        if (now > deadline) return reject(new Error('run did not open within 600 s'));
        requestAnimationFrame(frame);
      }
      requestAnimationFrame(frame);
    });
    const calls = performance.getEntriesByType('resource')
      .filter((e) => e.name.includes('/api/call/') && e.startTime >= t0 && e.startTime < t0 + interactive)
      .map((e) => {
        const t = Object.fromEntries(e.serverTiming.map((s) => [s.name, Math.round(s.duration)]));
        return e.name.split('/').pop() + ' sent +' + Math.round(e.startTime - t0) + ' ms, done +' + Math.round(e.responseEnd - t0) + ' ms (engine ' + t.engine + ' ms, JSON ' + t.json + ' ms, ' + (e.encodedBodySize / 1e6).toFixed(1) + ' MB)';
      })
      .join('; ');
    return { interactiveMs: interactive, blameMs: performance.now() - t0, longestFrameGapMs: longest, calls };
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

interface ScrollTiming {
  fps: number;
  worstFrameMs: number;
  rows: number;
}

/** Scrolls `selector` down by `px` each frame for `frames` frames (from the top), timing every frame; checks rows are drawn where it ends. */
async function scrollTimed(page: Page, selector: string, rowSelector: string, frames = 240, px = 96): Promise<ScrollTiming> {
  return page.evaluate(`(async (sel, rowSel, frames, px) => {
    const el = document.querySelector(sel);
    if (!el) throw new Error('nothing to scroll: ' + sel);
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    el.scrollTop = 0;
    await frame();
    await frame();
    const gaps = [];
    let last = performance.now();
    const t0 = last;
    for (let i = 0; i < frames; i++) {
      el.scrollTop += px;
      await frame();
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }
    const elapsed = performance.now() - t0;
    // The rows under the viewport must really be there (a blank virtual list would scroll fast too).
    const box = el.getBoundingClientRect();
    const under = document.elementFromPoint(box.left + 40, box.top + box.height / 2);
    if (!under || !under.closest(rowSel)) throw new Error('no row drawn under the scrolled viewport of ' + sel);
    return { fps: frames / (elapsed / 1000), worstFrameMs: Math.max(...gaps), rows: Math.round(el.scrollHeight / 24) };
  })(${JSON.stringify(selector)}, ${JSON.stringify(rowSelector)}, ${frames}, ${px})`);
}

/** The same scripted scroll on an empty scroller: the frame rate this machine gives at its current load (the ceiling for the real views). */
async function emptyScrollTimed(page: Page): Promise<ScrollTiming> {
  await page.evaluate(`(() => {
    const el = document.createElement('div');
    el.id = 'bench-empty-scroller';
    el.style.cssText = 'position:fixed;left:0;top:0;width:400px;height:400px;overflow:auto;z-index:99999;background:#fff';
    const inner = document.createElement('div');
    inner.className = 'bench-empty-row';
    inner.style.height = '2400000px';
    el.appendChild(inner);
    document.body.appendChild(el);
  })()`);
  const t = await scrollTimed(page, '#bench-empty-scroller', '.bench-empty-row');
  await page.evaluate(`document.getElementById('bench-empty-scroller').remove()`);
  return t;
}

/** Clicks Expand all on the waterfall and waits for the step list to be as long as the run; returns the time it took. */
async function expandAllTimed(page: Page, steps: number): Promise<number> {
  return page.evaluate(`(async (steps) => {
    const button = [...document.querySelectorAll('.waterfall button')].find((b) => b.textContent.trim() === 'Expand all');
    if (!button) throw new Error('no Expand all button on the waterfall');
    const t0 = performance.now();
    button.click();
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const wf = document.querySelector('[data-testid="waterfall"]');
    while (Number(wf.getAttribute('data-row-count')) < steps) {
      if (performance.now() - t0 > 60000) throw new Error('Expand all did not finish in 60 s');
      await frame();
    }
    return performance.now() - t0;
  })(${steps})`);
}

/** The engine's share of opening a run: getRun over HTTP from Node, read whole (no browser involved). */
async function getRunTimed(server: TbServer, runId: string): Promise<{ ms: number; mb: number }> {
  const t0 = performance.now();
  const res = await fetch(`${server.origin}${CALL_PREFIX}getRun`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token },
    body: JSON.stringify({ runId }),
  });
  const body = await res.text();
  JSON.parse(body);
  return { ms: performance.now() - t0, mb: Buffer.byteLength(body) / 1e6 };
}

export async function benchUi(): Promise<{ lines: string[] }> {
  const lines: string[] = [];
  const home = makeHome('tb-bench-ui-');
  const traces = path.join(home, 'generated');
  // BENCH_UI_SIZES=100000 measures one size only (a quicker loop while tuning).
  const sizes = (process.env.BENCH_UI_SIZES ?? '10000,100000').split(',').map(Number);
  // BENCH_UI_OUTPUT_BYTES=1000: every step's output padded to ~1 kB, as recorded prompts and answers weigh.
  const outputBytes = Number(process.env.BENCH_UI_OUTPUT_BYTES ?? 0);
  const runIds: Record<number, string> = {};
  for (const n of sizes) {
    const { file, runId } = writeTrace(traces, loopRunSpec(`bench-${n}`, n, `bench-${n}-steps`, outputBytes));
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
      const label = `${n.toLocaleString('en-US')}-step run${outputBytes ? ` (outputs of ~${outputBytes} B)` : ''}`;
      if (n <= WHOLE_RUN_BASELINE_MAX) {
        const engine = await getRunTimed(server, runIds[n]);
        lines.push(`${label}: engine getRun over HTTP (read and parsed in Node, no browser) ${Math.round(engine.ms)} ms for ${engine.mb.toFixed(1)} MB of JSON`);
      }
      const goals = n <= 10_000 ? [GOAL_MS] : n <= 100_000 ? [BIG_INTERACTIVE_GOAL_MS, BIG_FIRST_PAINT_GOAL_MS] : [];
      const verdict = goals.length
        ? goals
            .map((goal) => {
              // Judged on both opens: the first (the engine reads the run for the first time) is the one a user meets.
              const met = [cold.interactiveMs <= goal, warm.interactiveMs <= goal];
              return met[0] && met[1] ? `meets the ≤ ${goal} ms goal on both opens` : met[1] ? `meets the ≤ ${goal} ms goal on the second open only` : met[0] ? `meets the ≤ ${goal} ms goal on the first open only` : `MISSES the ≤ ${goal} ms goal`;
            })
            .join(', ')
        : 'opens (no time goal at this size)';
      const view = (await page.locator('[data-testid="waterfall"]').count()) ? 'waterfall' : 'graph';
      lines.push(
        `${label}: click → ${view} + step list painted ${Math.round(cold.interactiveMs)} ms first open, ${Math.round(warm.interactiveMs)} ms second open (fresh page): ${verdict}`,
        `${label}: first open's calls before the paint: ${cold.calls || 'none'}`,
        `${label}: click → blame shown ${Math.round(cold.blameMs)} ms first open, ${Math.round(warm.blameMs)} ms second open`,
        `${label}: longest frame gap while loading ${Math.round(Math.max(cold.longestFrameGapMs, warm.longestFrameGapMs))} ms; ${nodes} graph nodes and ${rows} list rows in the DOM`,
        `${label}: select a step → panel ${Math.round(select)} ms; expand a collapsed step → children listed ${expand === null ? 'n/a' : `${Math.round(expand)} ms`}`,
      );
      if (n === 100_000 && view === 'waterfall') {
        const expandAll = await expandAllTimed(page, n);
        lines.push(`${label}: Expand all → ${n.toLocaleString('en-US')} rows in the waterfall and list ${Math.round(expandAll)} ms`);
        const ceiling = await emptyScrollTimed(page);
        lines.push(`${label}: empty scroller, same script (this machine's frame ceiling at its current load): ${ceiling.fps.toFixed(1)} fps, worst frame ${Math.round(ceiling.worstFrameMs)} ms`);
        for (const [what, sel, rowSel] of [
          ['waterfall', '.wf-body', '.wf-row'],
          ['step list', '.step-list-body', '.step-row'],
        ] as const) {
          const s = await scrollTimed(page, sel, rowSel);
          const ok = s.fps >= SCROLL_GOAL_FPS ? `meets the ≥ ${SCROLL_GOAL_FPS} fps goal` : `MISSES the ≥ ${SCROLL_GOAL_FPS} fps goal`;
          lines.push(
            `${label}: ${what} scroll over ${s.rows.toLocaleString('en-US')} rows, 96 px a frame: ${s.fps.toFixed(1)} fps (${Math.round((100 * s.fps) / ceiling.fps)}% of the empty scroller), worst frame ${Math.round(s.worstFrameMs)} ms: ${ok}`,
          );
        }
      }
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
