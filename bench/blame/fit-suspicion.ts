/**
 * Fits the content-suspicion weights (blame.suspicion.weights) on the
 * Who&When development set: a conditional logit (McFadden 1974) — in each
 * failed run exactly one content step is the decisive mistake, and the
 * probability of step i is softmax(w · x_i) over the run's content steps.
 * Maximum likelihood by gradient ascent with a small L2 penalty.
 *
 * It prints the weights fitted on all logs, and — to show whether they
 * generalise — the accuracy of weights fitted on one half (odd ids) on the
 * other half (even ids) and back, beside the weights in the settings file.
 * Run: npx tsx bench/blame/fit-suspicion.ts
 */
import { fileURLToPath } from 'node:url';
import { prepareBlameWork } from '../../src-main/engine/blame/blame-run';
import { SUSPICION_FEATURES, suspicionOf, type SuspicionFeature } from '../../src-main/engine/blame/content-suspicion';
import { DEFAULT_SETTINGS } from '../../src-main/engine/scoring/settings';
import { loadWhoWhen } from './whowhen-bench';

interface Choice {
  id: number;
  xs: number[][];
  label: number;
}

function choicesOf(): Choice[] {
  const out: Choice[] = [];
  for (const log of loadWhoWhen()) {
    const w = prepareBlameWork(log.detail, { settings: DEFAULT_SETTINGS, toolStats: {}, asserted: true });
    const rows = suspicionOf(w);
    const label = rows.findIndex((r) => r.pos === log.mistakeStep);
    out.push({ id: log.id, xs: rows.map((r) => SUSPICION_FEATURES.map((f) => r.features[f])), label });
  }
  return out;
}

export function fitWeights(data: Choice[], iters = 600, rate = 0.5, l2 = 0.01): number[] {
  const k = SUSPICION_FEATURES.length;
  const w = new Array<number>(k).fill(0);
  const train = data.filter((c) => c.label >= 0);
  for (let it = 0; it < iters; it++) {
    const grad = new Array<number>(k).fill(0);
    for (const c of train) {
      const s = c.xs.map((x) => x.reduce((a, v, j) => a + v * w[j], 0));
      const m = Math.max(...s);
      const e = s.map((v) => Math.exp(v - m));
      const z = e.reduce((a, b) => a + b, 0);
      c.xs.forEach((x, i) => {
        const p = e[i] / z;
        for (let j = 0; j < k; j++) grad[j] += ((i === c.label ? 1 : 0) - p) * x[j];
      });
    }
    for (let j = 0; j < k; j++) w[j] += rate * (grad[j] / train.length - l2 * w[j]);
  }
  return w;
}

/** Share of runs whose highest-scoring content step is the labelled one (runs whose label is no content step count as misses). */
export function choiceAccuracy(data: Choice[], w: number[]): number {
  let hit = 0;
  for (const c of data) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    c.xs.forEach((x, i) => {
      const s = x.reduce((a, v, j) => a + v * w[j], 0);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    });
    if (best === c.label && best >= 0) hit++;
  }
  return data.length ? hit / data.length : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const data = choicesOf();
  const odd = data.filter((c) => c.id % 2 === 1);
  const even = data.filter((c) => c.id % 2 === 0);
  const current = SUSPICION_FEATURES.map((f) => (DEFAULT_SETTINGS.blame.suspicion.weights as Record<SuspicionFeature, number>)[f] ?? 0);
  const all = fitWeights(data);
  const wOdd = fitWeights(odd);
  const wEven = fitWeights(even);
  const fmt = (w: number[]) => SUSPICION_FEATURES.map((f, i) => `${f} ${w[i].toFixed(2)}`).join(', ');
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(`${data.length} runs; the labelled step is a content step in ${data.filter((c) => c.label >= 0).length}`);
  console.log(`fitted on all: ${fmt(all)}`);
  console.log(`settings:      ${fmt(current)}`);
  console.log(`pick-the-top-suspect accuracy, fitted on odd → even: ${pct(choiceAccuracy(even, wOdd))}; on even → odd: ${pct(choiceAccuracy(odd, wEven))}`);
  console.log(`settings' weights on even / odd: ${pct(choiceAccuracy(even, current))} / ${pct(choiceAccuracy(odd, current))}; all-fitted on all: ${pct(choiceAccuracy(data, all))}`);
}
