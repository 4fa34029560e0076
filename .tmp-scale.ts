import { syntheticRun } from './bench/blame/synthetic-run';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
import { blameRun } from './src-main/engine/blame/blame-run';
const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
for (const n of [10000, 25000, 50000, 100000]) {
  const d = syntheticRun(n); blameRun(d, ctx);
  const xs: number[] = [];
  for (let i = 0; i < 4; i++) { const t = performance.now(); blameRun(d, ctx); xs.push(performance.now() - t); }
  console.log(n, Math.min(...xs).toFixed(0), (Math.min(...xs) / n * 1000).toFixed(2), 'µs/step');
}
