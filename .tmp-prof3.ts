import { syntheticRun } from './bench/blame/synthetic-run';
import { jsonText } from './src-main/engine/scoring/json-text';
import { scanText, scanJson } from './src-main/engine/blame/value-features';
import { buildRunGraph } from './src-main/engine/blame/run-graph';
import { inferLineage } from './src-main/engine/blame/lineage';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
const d = syntheticRun(10000);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const g = buildRunGraph(d);
for (let r = 0; r < 5; r++) {
  let t = cpu();
  let nv = 0;
  for (const s of d.steps) { nv += scanJson(s.input, { k: 5 }).values.length; nv += scanJson(s.output, { k: 5 }).values.length; }
  const t1 = cpu();
  for (const s of d.steps) { nv += scanJson(s.input, { k: 5, values: false }).shingles.length; nv += scanJson(s.output, { k: 5, values: false }).shingles.length; }
  const t2 = cpu();
  inferLineage(g, DEFAULT_SETTINGS);
  const t3 = cpu();
  console.log('scanJson', (t1 - t).toFixed(1), 'no-values', (t2 - t1).toFixed(1), 'lineage', (t3 - t2).toFixed(1));
}
