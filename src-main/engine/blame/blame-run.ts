/**
 * blameRun: which step caused this run to fail, and why (docs/blame.md).
 * Deterministic and offline. Order of work:
 *   score steps → recoveries → lineage (its edges are reported for every
 *   run) → abstention gate (healthy runs stop here) → rules → rank (merge,
 *   collapse repeats, cause before symptom).
 */
import { withScratch } from './scratch-arrays';
import type { BlamedStep, BlameResult, Confidence, FailureDetection } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import { quoteRun, quoteStep } from '../text/evidence-quote';
import { jsonText } from '../text/json-text';
import { bm25Relevance } from '../scoring/relevance';
import { assessRun, healthOf, type ScoringContext } from '../scoring/score-run';
import { termBackground } from '../scoring/score-retrieval';
import { detectFailure } from './detect-failure';
import { signalFindings } from './rules-signals';
import { planIgnoredFindings, wrongToolFindings } from './rules-content';
import { suspicionFindings } from './rules-suspicion';
import { evidenceList, stepLabel, type BlameWork, type Finding } from './finding';
import { forwardPath, inferLineage, upstreamOf } from './lineage';
import { lineageEdges } from './lineage-edges';
import { findLoops } from './loops';
import { rankFindings, type Ranked } from './rank-findings';
import { findRecoveries } from './recovery';
import { buildRunGraph } from './run-graph';
import { checkFindings } from './rules-checks';
import { errorFindings } from './rules-errors';
import { expectedFindings } from './rules-expected';
import {
  droppedContextFindings,
  fabricationFindings,
  informationLostFindings,
  unusedContextFindings,
  wrongArgumentFindings,
} from './rules-lineage';
import { faithfulExecutorFindings } from './rules-faithful-executor';
import { noProgressFindings } from './rules-loops';
import { spectrumFindings, type SpectrumCounts } from './spectrum';

export interface BlameContext extends ScoringContext {
  /** What the answer should have contained (--expected TEXT); defaults to the verdict's expected value. */
  expected?: string;
  /** Other runs of the same pipeline, with verdicts, for the across-runs spectrum rule. */
  history?: RunDetail[];
  /**
   * The same runs as signature counts (store/run-signatures.ts), so that the engine need not load them whole;
   * used instead of `history` by the spectrum rule. Pass `background` from their inputs too.
   */
  spectrum?: SpectrumCounts;
  /** The user says this run failed (`tb blame --failed`, "Mark as failed"): blame always ranks suspects. */
  asserted?: boolean;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function fallbackFinding(w: BlameWork, failure: FailureDetection): Finding | null {
  const g = w.graph;
  let target = w.lineage.finalProducer;
  if (target < 0) {
    for (let p = g.steps.length - 1; p >= 0; p--) {
      if (g.live[p]) {
        target = p;
        break;
      }
    }
  }
  if (target < 0) return null;
  const run = w.detail.run;
  const runEv = run.error ? quoteRun(run, 'error', run.error.message) : run.verdict ? quoteRun(run, 'verdict', run.verdict.detail) : null;
  return {
    pos: target,
    rule: 'verdict-fallback',
    strength: w.settings.blame.strength.verdict_fallback,
    reason: `No step shows a fault, but ${failure.description.replace(/\.$/, '')}; ${stepLabel(w, target)} produced the output that was rejected.`,
    evidence: evidenceList(quoteStep(g.steps[target], 'output') ?? quoteStep(g.steps[target], 'input'), runEv),
    dependent: true,
  };
}

/** Graph, checks, recoveries, lineage, slice and loops of a run: what detection and every rule read. */
export function prepareBlameWork(detail: RunDetail, ctx: BlameContext): BlameWork {
  const settings = ctx.settings;
  const background = ctx.background ?? (ctx.history?.length ? termBackground(ctx.history.map((h) => jsonText(h.run.input, 5000))) : undefined);
  const assess = assessRun(detail, background ? { ...ctx, background } : ctx);
  const g = buildRunGraph(detail);
  const recovered = findRecoveries(g, assess, settings);
  const lineage = inferLineage(g, settings);
  const slice = new Set<number>();
  if (lineage.finalProducer >= 0) {
    for (const p of upstreamOf(g, lineage, lineage.finalProducer)) slice.add(p);
    slice.add(lineage.finalProducer);
  }
  const expected = ctx.expected ?? (detail.run.verdict?.expected !== undefined && detail.run.verdict.expected !== null ? jsonText(detail.run.verdict.expected) : null);
  return {
    detail,
    settings,
    graph: g,
    assess,
    recovered,
    lineage,
    slice,
    loops: findLoops(g, lineage, settings),
    relevance: ctx.relevance ?? bm25Relevance(settings),
    expected: expected && expected.trim() !== '' ? expected : null,
    history: ctx.history ?? [],
    spectrum: ctx.spectrum ?? null,
    symptoms: [],
  };
}

/**
 * An asserted failure is answered with `blame.asserted.suspects` ranked steps
 * whenever the run has them: after the rules' findings, the best content
 * suspects, then the other steps the answer rests on (nearest first), then,
 * when lineage links too little of the run, the other leaf steps (latest
 * first) — each ranked below every finding a rule made.
 */
function fillAssertedSuspects(w: BlameWork, ranked: Ranked, blamed: BlamedStep[], toBlamed: (f: Finding, c: Confidence) => BlamedStep): void {
  const g = w.graph;
  if (blamed.length >= w.settings.blame.asserted.suspects) return;
  const have = new Set([...ranked.causes.map((f) => f.pos), ...ranked.symptoms.map((x) => x.pos)]);
  const floor = Math.min(...ranked.causes.map((f) => f.strength), w.settings.blame.suspicion.strength_max);
  for (const f of suspicionFindings(w, [], w.settings.blame.asserted.suspects + have.size)) {
    if (blamed.length >= w.settings.blame.asserted.suspects) break;
    if (have.has(f.pos)) continue;
    have.add(f.pos);
    // Ranked below every finding a rule made, whatever its own suspicion.
    blamed.push(toBlamed({ ...f, strength: Math.min(f.strength, floor * w.settings.blame.asserted.below_rules) }, 'low'));
  }
  // Still short (few content steps): the other steps the answer rests on, nearest to it first; then,
  // when lineage links too little of the run, the other leaf steps, latest first.
  const leaf = (p: number) => !have.has(p) && g.live[p] && g.children.count(p) === 0;
  const onTheWay = [...w.slice].filter(leaf).sort((a, b) => b - a);
  const elsewhere: number[] = [];
  for (let p = g.steps.length - 1; p >= 0 && elsewhere.length < w.settings.blame.asserted.suspects; p--) if (leaf(p) && !w.slice.has(p)) elsewhere.push(p);
  for (const p of [...onTheWay, ...elsewhere]) {
    if (blamed.length >= w.settings.blame.asserted.suspects) break;
    have.add(p);
    const inSlice = w.slice.has(p);
    blamed.push(
      toBlamed(
        {
          pos: p,
          rule: 'asserted-suspect',
          strength: floor * w.settings.blame.asserted.on_the_way_share * (inSlice ? 1 : w.settings.blame.out_of_slice_share),
          reason: inSlice
            ? `${stepLabel(w, p)} is on the way to the answer the user rejected; no rule found a fault in it.`
            : `${stepLabel(w, p)} ran in the failed run, though no data-flow link to the answer was found; no rule found a fault in it.`,
          evidence: evidenceList(quoteStep(g.steps[p], 'output') ?? quoteStep(g.steps[p], 'input')),
          dependent: true,
        },
        'low',
      ),
    );
  }
}

export function blameRun(detail: RunDetail, ctx: BlameContext): BlameResult {
  // The hash tables of one blame reuse the arrays of the last one (scratch-arrays.ts says why).
  return withScratch(() => blameWith(detail, ctx));
}

function blameWith(detail: RunDetail, ctx: BlameContext): BlameResult {
  const w = prepareBlameWork(detail, ctx);
  const g = w.graph;
  const asserted = ctx.asserted === true;
  const detection = detectFailure({ ...w, asserted });
  // The parts with an entry per step (or per edge) are made last, just before the result is returned: made
  // first, 100,000 step scores lived through every scavenge of the rules (copied, then promoted); made last,
  // they are young when the caller gets them. The keys stay in place here so the result's key order is kept.
  const finished = (r: BlameResult): BlameResult => {
    r.step_scores = w.assess.map((a, i) => healthOf(a, g.steps[i]));
    // Lineage for every run, healthy ones too: the UI draws it.
    r.lineage_edges = lineageEdges(g, w.lineage);
    return r;
  };
  const result: BlameResult = {
    run_id: detail.run.run_id,
    healthy: true,
    failure: null,
    asserted,
    detection,
    blamed: [],
    co_blamed: [],
    symptoms: [],
    lineage_path: [],
    step_scores: [],
    recovered: [...w.recovered.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([p, r]) => ({ step_id: g.steps[p].step_id, name: g.steps[p].name, by: r.by === null ? null : g.steps[r.by].step_id, reason: r.reason })),
    loops: [],
    lineage_edges: [],
  };
  if (detection.status !== 'failed') return finished(result);

  result.loops = w.loops.map((l) => ({
    parent_id: l.parent >= 0 ? g.steps[l.parent].step_id : null,
    name: l.name,
    count: l.occurrences.length,
    step_ids: l.occurrences.slice(0, 20).map((p) => g.steps[p].step_id),
  }));
  const errs = errorFindings(w);
  const findings: Finding[] = [
    ...errs.findings,
    ...checkFindings(w, errs.handled),
    ...wrongArgumentFindings(w),
    ...faithfulExecutorFindings(w),
    ...informationLostFindings(w),
    ...droppedContextFindings(w),
    ...unusedContextFindings(w),
    ...fabricationFindings(w),
    ...expectedFindings(w),
    ...spectrumFindings(w),
    ...noProgressFindings(w),
    ...signalFindings(w, detection),
    ...planIgnoredFindings(w),
    ...wrongToolFindings(w),
  ];
  findings.push(...suspicionFindings(w, findings));
  if (findings.length === 0) {
    const fb = fallbackFinding(w, detection);
    if (fb) findings.push(fb);
  }
  const ranked = rankFindings(w, findings, errs.budget);

  result.healthy = false;
  result.failure = { kind: detection.kind ?? 'asserted', description: detection.description, signals: detection.signals };
  const toBlamed = (f: Finding, confidence: Confidence): BlamedStep => {
    const s = g.steps[f.pos];
    return {
      step_id: s.step_id,
      name: s.name,
      type: s.type,
      index: s.index,
      score: round3(Math.min(1, Math.max(0, f.strength))),
      confidence,
      reason: f.reason,
      evidence: f.evidence,
      rule: f.rule,
    };
  };
  result.blamed = ranked.causes.map((f, i) => toBlamed(f, i === 0 ? ranked.confidence : 'low'));
  // The user says it failed: always rank three suspects, the rest from content suspicion.
  if (asserted) fillAssertedSuspects(w, ranked, result.blamed, toBlamed);
  result.co_blamed = ranked.coBlamed.map((f) => toBlamed(f, 'low'));
  const seenSym = new Set<number>();
  result.symptoms = ranked.symptoms
    .filter((s) => (seenSym.has(s.pos) ? false : (seenSym.add(s.pos), true)))
    .map((s) => ({ step_id: g.steps[s.pos].step_id, name: g.steps[s.pos].name, caused_by: g.steps[s.causedBy].step_id, reason: s.reason }));
  const top = ranked.causes[0];
  if (top) {
    const path = w.lineage.finalProducer >= 0 ? forwardPath(g, w.lineage, top.pos, w.lineage.finalProducer) : null;
    result.lineage_path = (path ?? [top.pos]).map((p) => g.steps[p].step_id);
  }
  return finished(result);
}
