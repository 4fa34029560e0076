/**
 * Decides, step by step, what a run under a replay plan does (docs/replay.md):
 * replay the recorded outcome, return the fork edit, or run live. It also
 * keeps the divergence verdict that ends up in the run's provenance.
 */
import type { Json, Provenance } from './trace-format.js';
import type { NondeterminismLog, ReplayPlan, ReplayStepEntry } from './replay-plan.js';

export type ReplayDecision =
  | { kind: 'live'; instructions?: string; forkPoint?: boolean }
  | { kind: 'replay'; entry: ReplayStepEntry; forkPoint?: boolean }
  | { kind: 'override'; output: Json; entry?: ReplayStepEntry };

const LIVE: ReplayDecision = { kind: 'live' };

export class ReplayController {
  readonly plan: ReplayPlan;
  forkReached = false;
  diverged = false;
  /**
   * Did the pipeline consume the edit's slot: the fork step ran (an output edit), or the fork
   * step or a step inside it read its instructions (an instructions edit)? Reported at run end.
   */
  editApplied = false;
  private readonly notes: string[] = [];
  private readonly forkIndex: number;
  private readonly seen = new Set<string>();
  /** Keys of steps replayed whole: their recorded descendants were not expected to run. */
  private readonly replayedKeys: string[] = [];
  private readonly cursors = new Map<string, number>();

  constructor(plan: ReplayPlan) {
    this.plan = plan;
    this.forkIndex = this.entry(plan.fork_step_key)?.index ?? Number.POSITIVE_INFINITY;
  }

  /** Once the fork is reached, or after a strict-mode divergence, everything runs live. */
  get replaying(): boolean {
    return !this.forkReached && !(this.plan.mode === 'strict' && this.diverged);
  }

  /** Record a problem; `diverges` marks the trial as not having tested the edit. */
  note(message: string, diverges: boolean): void {
    if (this.notes.length < 20) this.notes.push(message);
    if (diverges && this.plan.mode === 'strict') this.diverged = true;
  }

  entry(key: string): ReplayStepEntry | undefined {
    return Object.prototype.hasOwnProperty.call(this.plan.steps, key) ? this.plan.steps[key] : undefined;
  }

  /** The model recorded for a step anywhere in the source run, when the plan carries it. */
  recordedModel(key: string): string | undefined {
    // Own keys only: a step keyed "constructor" must not find what every object inherits.
    const models = this.plan.recorded_models;
    return this.entry(key)?.model ?? (models && Object.prototype.hasOwnProperty.call(models, key) ? models[key] : undefined);
  }

  decide(key: string, fingerprint: string): ReplayDecision {
    this.seen.add(key);
    const plan = this.plan;
    if (key === plan.fork_step_key && !this.forkReached) {
      const entry = this.entry(key);
      this.checkFingerprint(key, entry, fingerprint);
      this.checkSkipped();
      this.forkReached = true;
      if (plan.edit.kind === 'output') {
        this.editApplied = true;
        if (plan.arm === 'treatment') return { kind: 'override', output: plan.edit.output, entry };
        if (entry) return { kind: 'replay', entry, forkPoint: true };
        this.note(`the fork step ${key} has no recorded outcome for the control arm; it ran live`, true);
        return { kind: 'live', forkPoint: true };
      }
      return plan.arm === 'treatment'
        ? { kind: 'live', instructions: plan.edit.instructions, forkPoint: true }
        : { kind: 'live', forkPoint: true };
    }
    if (!this.replaying) return LIVE;
    if (this.isCoveredByReplay(key)) return LIVE;
    const entry = this.entry(key);
    if (plan.fork_step_key.startsWith(key + '/')) {
      // An ancestor of the fork step must run live, or the fork step would never be reached.
      if (!entry) this.note(`step ${key} (an ancestor of the fork step) is not in the recording`, true);
      else this.checkFingerprint(key, entry, fingerprint);
      return LIVE;
    }
    if (!entry || entry.index > this.forkIndex) {
      this.note(`step ${key} ran before the fork point but is not in the recording's prefix`, true);
      return LIVE;
    }
    if (!this.checkFingerprint(key, entry, fingerprint) && plan.mode === 'strict') return LIVE;
    this.replayedKeys.push(key);
    return { kind: 'replay', entry };
  }

  /** The next recorded clock / random / id value for a scope, or undefined to use a live one. */
  take(scope: string, kind: keyof NondeterminismLog): number | string | undefined {
    if (!this.replaying) return undefined;
    const logs = this.plan.nondeterminism;
    const values = (logs && Object.prototype.hasOwnProperty.call(logs, scope) ? logs[scope]?.[kind] : undefined) as (number | string)[] | undefined;
    if (!values) return undefined;
    const cursorKey = `${kind}\u0000${scope}`;
    const i = this.cursors.get(cursorKey) ?? 0;
    if (i >= values.length) return undefined;
    this.cursors.set(cursorKey, i + 1);
    return values[i];
  }

  /** A step asked for its instructions: an instructions edit at it (or around it) reached the code. */
  instructionsRead(replayKey: string): void {
    const fork = this.plan.fork_step_key;
    if (replayKey === fork || replayKey.startsWith(fork + '/')) this.editApplied = true;
  }

  /** Called at run end: a fork that was never reached tested nothing. */
  finish(): void {
    if (!this.forkReached) this.note(`the fork step ${this.plan.fork_step_key} was never reached`, true);
  }

  get messages(): readonly string[] {
    return this.notes;
  }

  /** `final`: at run end, when whether the edit was applied is known. */
  provenance(final = false): Provenance {
    const p: Provenance = {
      source_run_id: this.plan.source_run_id,
      experiment_id: this.plan.experiment_id,
      arm: this.plan.arm,
      fork_step_key: this.plan.fork_step_key,
      trial: this.plan.trial,
    };
    if (this.diverged) p.diverged = true;
    if (this.notes.length) p.divergence = this.notes.join('; ');
    if (final) p.edit_applied = this.editApplied;
    return p;
  }

  private checkFingerprint(key: string, entry: ReplayStepEntry | undefined, fingerprint: string): boolean {
    if (!entry?.input_fingerprint || entry.input_fingerprint === fingerprint) return true;
    this.note(`the input of step ${key} differs from the recording`, true);
    return false;
  }

  private isCoveredByReplay(key: string): boolean {
    for (const k of this.replayedKeys) if (key.startsWith(k + '/')) return true;
    return false;
  }

  /** Recorded prefix steps that the live run never arrived at: the path changed. */
  private checkSkipped(): void {
    for (const [key, entry] of Object.entries(this.plan.steps)) {
      if (entry.index >= this.forkIndex || this.seen.has(key) || this.isCoveredByReplay(key)) continue;
      if (this.plan.fork_step_key.startsWith(key + '/')) continue;
      this.note(`recorded step ${key} did not run before the fork point`, true);
      return;
    }
  }
}
