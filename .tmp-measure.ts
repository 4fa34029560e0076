import { loadScenarios } from './bench/blame/run-blame-bench';
import { coverage, termSet, termsOf } from './src-main/engine/scoring/text-terms';
import { jsonText, llmText, hasToolCalls } from './src-main/engine/scoring/json-text';
import { meanPairwiseRougeL } from './src-main/engine/scoring/rouge-l';
import { bm25Coverage } from './src-main/engine/scoring/relevance';
import { retrievalPassages, retrievalQuery } from './src-main/engine/scoring/score-retrieval';
const runs = loadScenarios();
const ov: [string, number, number][] = [];
const cons: [string, number][] = [];
const rel: [string, number][] = [];
for (const r of runs) for (const s of r.detail.steps) {
  if (s.type === 'llm' && s.status === 'ok' && !hasToolCalls(s.output)) {
    const t = termSet(llmText(s.output));
    if (t.size >= 8) ov.push([`${r.file}:${s.name}`, t.size, coverage(t, termSet(jsonText(s.input)))]);
    const samples = s.metadata.samples;
    if (Array.isArray(samples)) cons.push([r.file, meanPairwiseRougeL((samples as string[]).map((x) => termsOf(x)))]);
  }
  if (s.type === 'retrieval' && s.status === 'ok') {
    const ps = retrievalPassages(s.output) ?? [];
    const cv = bm25Coverage(retrievalQuery(s, r.detail.run.input), ps);
    cv.forEach((c) => rel.push([r.file, c]));
  }
}
ov.sort((a, b) => a[2] - b[2]);
console.log('overlap lowest', ov.slice(0, 6).map((x) => `${x[0]} ${x[2].toFixed(2)}`));
console.log('consistency', cons.map((x) => `${x[0]} ${x[1].toFixed(2)}`));
const vals = rel.map((x) => x[1]).sort((a, b) => a - b);
console.log('coverage values', vals.map((v) => v.toFixed(2)).join(' '));
