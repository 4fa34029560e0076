import { syntheticRun } from './bench/blame/synthetic-run';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
import { assessRun } from './src-main/engine/scoring/score-run';
import { buildRunGraph } from './src-main/engine/blame/run-graph';
import { findRecoveries } from './src-main/engine/blame/recovery';
import { inferLineage, upstreamOf } from './src-main/engine/blame/lineage';
import { findLoops } from './src-main/engine/blame/loops';
import { blameRun } from './src-main/engine/blame/blame-run';
const d = syntheticRun(Number(process.env.N ?? 10000));
const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let r = 0; r < 4; r++) {
  let t = cpu(); const lap = (n: string) => { const x = cpu(); process.stdout.write(`${n} ${(x - t).toFixed(1)}  `); t = x; };
  const a = assessRun(d, ctx); lap('assess');
  const g = buildRunGraph(d); lap('graph');
  findRecoveries(g, a, DEFAULT_SETTINGS); lap('recover');
  const lin = inferLineage(g, DEFAULT_SETTINGS); lap('lineage');
  upstreamOf(g, lin, lin.finalProducer); lap('slice');
  findLoops(g, lin, DEFAULT_SETTINGS); lap('loops');
  blameRun(d, ctx); lap('BLAME');
  console.log();
}
