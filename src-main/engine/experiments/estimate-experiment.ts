/**
 * What an experiment will cost, from the recording, before anything runs:
 * every recorded step after the fork runs live again in each of the 2N
 * trials; every step before it is replayed and costs nothing. Ancestors of
 * the fork step run live too (they contain it), but their own usage is not
 * counted: SDK wrappers put model usage on the step that made the call.
 */
import type { RunDetail, Step } from '../../../src-shared/model';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { ExperimentEstimate } from '../../../src-shared/experiments';
import type { EntryCommand } from '../../../src-shared/trace-format';
import { isDescendant } from './resolve-fork-step';
import { sameJson } from './validate-edit';

/** Step types that stand for a model or tool call (what a replay saves). */
export const CALL_STEP_TYPES = new Set(['llm', 'tool', 'retrieval']);

export function stepTokens(s: Pick<Step, 'usage'>): number {
  const u = s.usage;
  if (!u) return 0;
  if (typeof u.total_tokens === 'number') return u.total_tokens;
  return (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
}

export interface StepPartition {
  /** Replayed from the recording in every trial. */
  replayed: Step[];
  /** Run live again in every trial. */
  live: Step[];
}

/** Which recorded steps a trial replays and which it runs live. */
export function partitionSteps(detail: RunDetail, fork: Step, edit: ForkEdit): StepPartition {
  const replayed: Step[] = [];
  const live: Step[] = [];
  const replayedKeys = new Set<string>();
  for (const s of detail.steps) {
    if (s === fork) {
      if (edit.kind === 'instructions') live.push(s);
      continue;
    }
    if (isDescendant(s, fork)) {
      // An output edit replaces the fork step whole: its children never run.
      if (edit.kind === 'instructions') live.push(s);
      continue;
    }
    if (isDescendant(fork, s)) continue; // an ancestor: runs live around the fork
    // A replayed step's children are replayed with it, even one that started after the fork (concurrent steps).
    if (hasAncestorIn(s.replay_key, replayedKeys)) {
      if (s.index < fork.index) replayed.push(s);
      continue;
    }
    if (s.index < fork.index) {
      replayed.push(s);
      replayedKeys.add(s.replay_key);
    } else live.push(s);
  }
  return { replayed, live };
}

function hasAncestorIn(key: string, keys: Set<string>): boolean {
  for (let i = key.lastIndexOf('/'); i > 0; i = key.lastIndexOf('/', i - 1)) if (keys.has(key.slice(0, i))) return true;
  return false;
}

function totals(steps: Step[]): { calls: number; tokens: number; cost_usd: number } {
  let calls = 0;
  let tokens = 0;
  let cost = 0;
  for (const s of steps) {
    if (CALL_STEP_TYPES.has(s.type)) calls += 1;
    tokens += stepTokens(s);
    cost += s.usage?.cost_usd ?? 0;
  }
  return { calls, tokens, cost_usd: cost };
}

export function estimateExperiment(
  detail: RunDetail,
  fork: Step,
  edit: ForkEdit,
  nPerArm: number,
  entry: EntryCommand,
  approvalNeeded: boolean,
): ExperimentEstimate {
  const { replayed, live } = partitionSteps(detail, fork, edit);
  const trials = 2 * nPerArm;
  const perTrial = totals(live);
  const savedPerTrial = totals(replayed);
  const run = detail.run;
  const afterFork = run.ended_at !== null ? Math.max(0, run.ended_at - fork.started_at) : 0;
  const downstream = live.filter((s) => s !== fork && !isDescendant(s, fork)).length;
  return {
    fork_step: { step_id: fork.step_id, key: fork.replay_key, name: fork.name, type: fork.type, index: fork.index },
    edit_kind: edit.kind,
    downstream_steps: downstream,
    replayed_steps: replayed.length,
    trials,
    per_trial: { ...perTrial, duration_ms: afterFork },
    total: { calls: perTrial.calls * trials, tokens: perTrial.tokens * trials, cost_usd: perTrial.cost_usd * trials },
    saved: { calls: savedPerTrial.calls * trials, tokens: savedPerTrial.tokens * trials, cost_usd: savedPerTrial.cost_usd * trials },
    command: { argv: entry.command, cwd: entry.cwd ?? null, env: entry.env ?? {} },
    approval_needed: approvalNeeded,
    warnings: estimateWarnings(detail, fork, edit, replayed, live),
  };
}

function estimateWarnings(detail: RunDetail, fork: Step, edit: ForkEdit, replayed: Step[], live: Step[]): string[] {
  const w: string[] = [];
  if (edit.kind === 'output' && fork.status === 'ok' && sameJson(edit.output, fork.output)) {
    w.push('the edited output equals the recorded one: both arms will run the same thing');
  }
  if (edit.kind === 'output' && fork.status === 'running') {
    w.push(`step ${fork.replay_key} has no recorded outcome, so the control arm cannot replay it; control trials will be reported as diverged`);
  }
  if (edit.kind === 'instructions' && !['llm', 'prompt', 'agent'].includes(fork.type)) {
    w.push(`step ${fork.replay_key} is a ${fork.type} step: new instructions reach it only if its code reads them with step.instructions(...)`);
  }
  const sideEffects = live.filter((s) => s.metadata?.side_effect === true);
  if (sideEffects.length) {
    w.push(`${sideEffects.length} step(s) after the fork have side effects (${sideEffects.slice(0, 3).map((s) => s.replay_key).join(', ')}): they are refused in trials unless the pipeline registers a mock`);
  }
  const unchecked = replayed.filter((s) => typeof s.extra?.input_fingerprint !== 'string').length;
  if (unchecked) w.push(`${unchecked} replayed step(s) carry no input fingerprint: a changed input there cannot be detected, only a changed order`);
  if (detail.run.status === 'running') w.push('the source run has not ended yet');
  if (detail.run.provenance) w.push(`the source run is itself a forked run (of ${detail.run.provenance.source_run_id})`);
  return w;
}
