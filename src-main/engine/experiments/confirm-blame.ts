/**
 * "Which step?" answered by experiment rather than by score: for each step
 * blame names, fork the failing run there with the output a passing run of
 * the same pipeline produced at the same replay key (a transplant), and
 * measure how much that alone changes the success rate. Candidates are
 * ranked by effect, with Benjamini–Hochberg adjusted p-values since several
 * steps are tested at once.
 */
import { randomBytes } from 'node:crypto';
import type { BlameResult } from '../../../src-shared/analysis';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { BlameCandidateResult, BlameConfirmation } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';
import type { Db } from '../store/open-database';
import { getRunDetail } from '../store/read-runs';
import { startExperiment, type ExperimentHost, type RunningExperiment } from './run-experiment';
import { resolveForkStep } from './resolve-fork-step';
import { benjaminiHochberg } from './statistics';
import { sameJson } from './validate-edit';
import { passingLocalRunsOf } from '../store/reference-runs';
import type { Json } from '../../../src-shared/trace-format';

const DEFAULT_MAX_CANDIDATES = 3;
const MAX_DIFFERING = 8;
const CONFIRM_ALPHA = 0.05;

export interface ConfirmBlameRequest {
  source: RunDetail;
  /** The passing run to transplant from; default: the newest passing run of the same pipeline. */
  reference?: RunDetail;
  /** Steps to test (replay keys, ids or unique names); default: blame's findings. */
  candidates?: string[];
  maxCandidates?: number;
  /**
   * blamed: test blame's findings only. differing: also every step whose
   * output differs from the passing run's (at most MAX_DIFFERING more), for
   * when blame named a step that only carried the fault, or missed it.
   */
  scope?: 'blamed' | 'differing';
  n: number;
  parallel?: number;
  timeoutMs?: number;
  approve?: boolean;
  /** The approval hash shown with the command (see command-approvals.ts). */
  approvedSha?: string;
  /** Extra environment names the trials receive. */
  env?: string[];
  /** Called with each experiment as it starts (so a caller can cancel it). */
  onExperiment?: (running: RunningExperiment) => void;
}

/** How many passing runs of the pipeline are compared by input before giving up. */
const REFERENCE_SCAN = 500;

/**
 * The newest local run of the pipeline, not itself a fork, whose recorded
 * verdict is pass and whose input equals the failing run's: a transplant
 * from a run that answered another question tests nothing. Runs imported
 * from files (foreign) are never picked: their outputs would become the live
 * input of the user's pipeline without the user's say. Ordered by import
 * order too, so a trace claiming a future start time cannot jump the queue.
 */
export function findReferenceRun(db: Db, source: RunDetail['run']): RunDetail | null {
  const rows = passingLocalRunsOf(db, source.pipeline, source.run_id, REFERENCE_SCAN);
  const row = rows.find((r) => sameJson(r.input === null ? null : (JSON.parse(r.input) as Json), source.input ?? null));
  return row ? getRunDetail(db, row.run_id) : null;
}

/** What the user should know about a reference they named themselves. */
function referenceWarnings(source: RunDetail, reference: RunDetail): string[] {
  const w: string[] = [];
  if (!sameJson(reference.run.input ?? null, source.run.input ?? null)) {
    w.push(`the reference run ${reference.run.run_id} was given a different input than run ${source.run.run_id}: a transplanted output may answer another question`);
  }
  if (reference.run.origin === 'foreign') {
    w.push(`the reference run ${reference.run.run_id} was imported from ${reference.run.source_file ?? 'a file'}, not written by the local SDK: its outputs become live input to your pipeline because you named it`);
  }
  if (reference.run.verdict?.pass !== true) w.push(`the reference run ${reference.run.run_id} has no passing verdict`);
  return w;
}

interface Candidate {
  step: Step;
  blameRank: number | null;
}

function candidatesOf(req: ConfirmBlameRequest, reference: RunDetail, blame: () => BlameResult): Candidate[] {
  const named = namedOrBlamed(req, blame);
  if (req.scope !== 'differing') return named;
  const have = new Set(named.map((c) => c.step.step_id));
  const donors = new Map(reference.steps.map((s) => [s.replay_key, s]));
  const differing = req.source.steps
    .filter((s) => !have.has(s.step_id))
    .filter((s) => {
      const d = donors.get(s.replay_key);
      return d !== undefined && d.status === 'ok' && !(s.status === 'ok' && sameJson(d.output, s.output));
    })
    .slice(0, MAX_DIFFERING);
  return [...named, ...differing.map((step) => ({ step, blameRank: null }))];
}

function namedOrBlamed(req: ConfirmBlameRequest, blame: () => BlameResult): Candidate[] {
  const max = req.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  if (req.candidates?.length) {
    // Named by the user: all of them, whatever the default cap.
    return req.candidates.map((ref) => ({ step: resolveForkStep(req.source, ref), blameRank: null }));
  }
  const b = blame();
  if (b.healthy) throw new EngineError('bad_request', `run ${req.source.run.run_id} is healthy: blame names no step to confirm`);
  const seen = new Set<string>();
  const out: Candidate[] = [];
  [...b.blamed, ...b.co_blamed].forEach((f, rank) => {
    if (seen.has(f.step_id) || out.length >= max) return;
    seen.add(f.step_id);
    const step = req.source.steps.find((s) => s.step_id === f.step_id);
    if (step) out.push({ step, blameRank: rank });
  });
  if (out.length === 0) throw new EngineError('bad_request', `blame names no step of run ${req.source.run.run_id} to confirm`);
  return out;
}

export async function confirmBlame(host: ExperimentHost, req: ConfirmBlameRequest, blame: () => BlameResult): Promise<BlameConfirmation> {
  const source = req.source;
  const reference = req.reference ?? findReferenceRun(host.db, source.run);
  if (!reference) {
    throw new EngineError(
      'bad_request',
      `no passing run of pipeline "${source.run.pipeline}" with the same input as run ${source.run.run_id} to transplant outputs from ` +
        `(runs of another input, and runs imported from files, are never picked automatically); record one, or name one with --reference RUN`,
    );
  }
  if (reference.run.pipeline !== source.run.pipeline) {
    throw new EngineError('bad_request', `the reference run ${reference.run.run_id} is of pipeline "${reference.run.pipeline}", not "${source.run.pipeline}"`);
  }
  const groupId = `grp-${randomBytes(6).toString('hex')}`;
  const results: BlameCandidateResult[] = [];
  let approve = req.approve;
  for (const c of candidatesOf(req, reference, blame)) {
    const base: BlameCandidateResult = {
      step_id: c.step.step_id,
      name: c.step.name,
      key: c.step.replay_key,
      index: c.step.index,
      blame_rank: c.blameRank,
      experiment_id: null,
      effect: null,
      p_value: null,
      p_adjusted: null,
      confirmed: false,
      skipped: null,
    };
    const donor = reference.steps.find((s) => s.replay_key === c.step.replay_key);
    if (!donor) base.skipped = `the passing run ${reference.run.run_id} has no step ${c.step.replay_key}`;
    else if (donor.status !== 'ok') base.skipped = `step ${c.step.replay_key} did not succeed in the passing run either`;
    else if (c.step.status === 'ok' && sameJson(donor.output, c.step.output)) base.skipped = `step ${c.step.replay_key} produced the same output in both runs: transplanting it changes nothing`;
    if (base.skipped) {
      results.push(base);
      continue;
    }
    const running = startExperiment(host, {
      source,
      at: c.step.replay_key,
      edit: { kind: 'output', output: donor!.output },
      n: req.n,
      parallel: req.parallel,
      timeoutMs: req.timeoutMs,
      label: `blame confirmation: ${c.step.name} from ${reference.run.run_id.slice(0, 12)}`,
      approve,
      approvedSha: req.approvedSha,
      env: req.env,
      groupId,
    });
    // The first start records the approval; the later ones find it.
    approve = false;
    req.onExperiment?.(running);
    const summary = await running.done;
    base.experiment_id = summary.experiment_id;
    base.effect = summary.effect;
    base.p_value = summary.effect === null ? null : summary.p_value;
    results.push(base);
  }

  const tested = results.filter((r) => r.p_value !== null);
  const adjusted = benjaminiHochberg(tested.map((r) => r.p_value as number));
  tested.forEach((r, i) => {
    r.p_adjusted = adjusted[i];
    r.confirmed = (r.effect ?? 0) > 0 && adjusted[i] < CONFIRM_ALPHA;
  });
  const ranked = [
    ...tested.sort((a, b) => (b.effect ?? 0) - (a.effect ?? 0) || a.index - b.index),
    ...results.filter((r) => r.p_value === null),
  ];
  const confirmed = ranked.filter((r) => r.confirmed).sort((a, b) => a.index - b.index);
  return {
    run_id: source.run.run_id,
    reference_run_id: reference.run.run_id,
    group_id: groupId,
    candidates: ranked,
    root_cause_step_id: confirmed[0]?.step_id ?? null,
    warnings: req.reference ? referenceWarnings(source, reference) : [],
  };
}
