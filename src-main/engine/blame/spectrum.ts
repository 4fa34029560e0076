/**
 * Across runs: spectrum-based fault localisation. Each step gets a signature
 * (name, tool, argument shape, outcome class); over the runs of the same
 * pipeline that have verdicts, the Ochiai coefficient
 *   ef / sqrt(nf × (ef + ep))
 * (Abreu et al. 2007; ef/ep = failing/passing runs holding the signature,
 * nf = all failing runs) says how strongly a signature goes with failure.
 * It needs `spectrum.min_failing_runs` failing and `min_passing_runs`
 * passing runs, counting the current one.
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { classifyError } from '../scoring/error-class';
import { quoteStep } from '../text/evidence-quote';
import { isEmptyPayload, isObj } from '../text/json-text';
import { duplicateOf } from '../scoring/score-run';
import { errorShapeOf, toolNameOf } from '../scoring/score-tool';
import { evidenceList, stepLabel, type BlameWork, type Finding } from './finding';

function shapeOf(v: Json | null): string {
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${Array.isArray(v[k]) ? 'array' : v[k] === null ? 'null' : typeof v[k]}`)
      .join(',')}}`;
  }
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

function outcomeClass(s: Step): string {
  if (s.status === 'error') return `error:${classifyError(s.error).origin}`;
  if (s.status === 'running') return 'unfinished';
  if (errorShapeOf(s.output)) return 'error-payload';
  if (isEmptyPayload(s.output)) return 'empty';
  return 'ok';
}

function stepSignature(s: Step): string {
  const tool = s.type === 'tool' ? toolNameOf(s) : '';
  const args = s.type === 'tool' || s.type === 'retrieval' ? shapeOf(s.input) : '';
  return `${s.type}|${s.name}|${tool}|${args}|${outcomeClass(s)}`;
}

/**
 * A run's distinct step signatures (duplicates recorded by a second instrumentation layer left out), from its
 * steps in any order: a run's loaded steps, or its steps read one at a time (store/read-runs.ts eachStepOf).
 */
export function signaturesOf(steps: Iterable<Step>): Set<string> {
  const out = new Set<string>();
  for (const s of steps) if (duplicateOf(s) === null) out.add(stepSignature(s));
  return out;
}

/** Over the history runs: how many fail and pass, and how many of each hold each signature. */
export interface SpectrumCounts {
  failingRuns: number;
  passingRuns: number;
  ef: Map<string, number>;
  ep: Map<string, number>;
}

function countsFromHistory(w: BlameWork): SpectrumCounts {
  const others = w.history.filter((h) => h.run.run_id !== w.detail.run.run_id && h.run.verdict && h.run.pipeline === w.detail.run.pipeline);
  const counts: SpectrumCounts = { failingRuns: 0, passingRuns: 0, ef: new Map(), ep: new Map() };
  for (const h of others) {
    const into = h.run.verdict!.pass ? counts.ep : counts.ef;
    if (h.run.verdict!.pass) counts.passingRuns += 1;
    else counts.failingRuns += 1;
    for (const sig of signaturesOf(h.steps)) into.set(sig, (into.get(sig) ?? 0) + 1);
  }
  return counts;
}

export function spectrumFindings(w: BlameWork): Finding[] {
  const cfg = w.settings.blame.spectrum;
  const { failingRuns, passingRuns, ef, ep } = w.spectrum ?? countsFromHistory(w);
  if (failingRuns + passingRuns === 0) return [];
  const nf = failingRuns + 1;
  if (nf < cfg.min_failing_runs || passingRuns < cfg.min_passing_runs) return [];
  const g = w.graph;
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p]) continue;
    const sig = stepSignature(g.steps[p]);
    if (seen.has(sig)) continue;
    seen.add(sig);
    const f = (ef.get(sig) ?? 0) + 1;
    const pz = ep.get(sig) ?? 0;
    const ochiai = f / Math.sqrt(nf * (f + pz));
    if (ochiai < cfg.min_ochiai) continue;
    out.push({
      pos: p,
      rule: 'spectrum',
      strength: w.settings.blame.strength.spectrum * ochiai,
      reason: `${stepLabel(w, p)} with this argument shape and outcome appears in ${f} of ${nf} failing runs and ${pz} of ${passingRuns} passing runs of "${w.detail.run.pipeline}" (Ochiai ${ochiai.toFixed(2)}).`,
      evidence: evidenceList(quoteStep(g.steps[p], 'input') ?? quoteStep(g.steps[p], 'output')),
      dependent: false,
    });
  }
  return out;
}
