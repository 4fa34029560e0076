import { loadScenarios } from './bench/blame/run-blame-bench';
import { blameRun } from './src-main/engine/blame/blame-run';
import { DEFAULT_SETTINGS } from './src-main/engine/scoring/settings';
const runs = loadScenarios();
for (const s of runs) {
  if (s.expected === '') continue;
  const hist = runs.filter((h) => h.detail.run.pipeline === s.detail.run.pipeline && h !== s).map((h) => h.detail);
  const r = blameRun(s.detail, { settings: DEFAULT_SETTINGS, toolStats: s.toolStats, history: hist });
  console.log(`${s.file} [${r.blamed[0]?.confidence}] ` + r.blamed.map((b) => `${b.name}:${b.rule}:${b.score}`).join(' | ') + (r.co_blamed.length ? ` CO:${r.co_blamed.map((b) => b.name)}` : ''));
}
