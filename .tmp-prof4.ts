import { syntheticRun } from './bench/blame/synthetic-run';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
import { blameRun } from './src-main/engine/blame/blame-run';
const d = syntheticRun(Number(process.env.N ?? 10000));
const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const xs: string[] = [];
for (let r = 0; r < 12; r++) { const t = cpu(); const w = performance.now(); blameRun(d, ctx); xs.push(`${(cpu() - t).toFixed(0)}/${(performance.now() - w).toFixed(0)}`); }
console.log(xs.join(' '));
