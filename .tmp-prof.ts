import { syntheticRun } from './bench/blame/synthetic-run';
import { blameRun } from './src-main/engine/blame/blame-run';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
const d = syntheticRun(10000);
const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
for (let i = 0; i < 3; i++) { const t = performance.now(); blameRun(d, ctx); console.log(performance.now() - t); }
