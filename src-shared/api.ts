/**
 * The one API contract. Electron IPC, the local HTTP server of `tb serve` and
 * the in-process CLI are three transports of this map; the renderer never
 * knows which one it talks to.
 *
 * Every call has a zod schema for its arguments (validated by each transport
 * before the engine sees them) and a result type.
 */
import { z } from 'zod';
import type { ImportError, ImportReport, RunDetail, RunSummary } from './model';
import type { RunSkeleton, StepPayload } from './run-skeleton';
import type { FindHit } from './find-steps';
import type { ImportProgress } from './import-progress';
import type { BlameResult, DiffResult, StepHealth } from './analysis';
import { forkEditSchema, oracleSchema } from './experiments';
import type { BlameConfirmation, ExperimentDetail, ExperimentEstimate, ExperimentProgress, ExperimentSummary } from './experiments';
import type { ExplainEstimate, Explanation } from './explain';
import type { FailureMotif, MotifFile, SeenBefore } from './motifs';

const runId = z.string().min(1).max(200);
/** A step of a run: replay key, step id, or unique name. */
const stepRef = z.string().min(1).max(2000);
const trialsPerArm = z.number().int().min(1).max(500);
const approvalSha = z.string().regex(/^[0-9a-fA-F]{16,64}$/);
const envNames = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(200)).max(100);

export const RUN_FILTERS = ['all', 'failed', 'blamed', 'healthy', 'running', 'forked', 'imported'] as const;
export type RunFilter = (typeof RUN_FILTERS)[number];

export const REPORT_FORMATS = ['md', 'html', 'json', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const callSchemas = {
  listRuns: z
    .object({
      filter: z.enum(RUN_FILTERS).optional(),
      search: z.string().max(500).optional(),
      pipeline: z.string().max(500).optional(),
      limit: z.number().int().min(1).max(100_000).optional(),
      /** Fork trials are listed only with this (or under the 'forked' filter): they belong to their experiment. */
      includeTrials: z.boolean().optional(),
    })
    .strict(),
  /** `maxSteps`: refuse (code `unsupported`) a run with more steps, instead of shipping it whole; read it with getRunSkeleton then. */
  getRun: z.object({ runId, maxSteps: z.number().int().min(1).optional() }).strict(),
  /** Every step without its payload (src-shared/run-skeleton.ts): what a big run opens with. */
  getRunSkeleton: z.object({ runId }).strict(),
  /** Payloads of up to 1,000 steps, by id or by position in start order (`from`, `count`). */
  getStepPayloads: z
    .object({ runId, stepIds: z.array(stepRef).min(1).max(1000).optional(), from: z.number().int().min(0).optional(), count: z.number().int().min(1).max(1000).optional() })
    .strict()
    .refine((a) => (a.stepIds === undefined) !== (a.from === undefined), { message: 'give either stepIds or from' }),
  /** Steps of a run holding some text (src-shared/find-steps.ts), for runs read in parts; at most `limit` hits (default 1000). */
  findSteps: z.object({ runId, query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(10_000).optional() }).strict(),
  /** Stops every import in progress between two committed blocks (what was committed stays; importing the file again completes it). */
  cancelImport: z.object({}).strict(),
  importPaths: z.object({ paths: z.array(z.string().min(1).max(4096)).min(1).max(1000) }).strict(),
  /** With `runId`: only the problems that concern that run (by the run id in the line, else its file's), in line order. */
  listImportErrors: z.object({ limit: z.number().int().min(1).max(10_000).optional(), runId: runId.optional() }).strict(),
  /**
   * `failed`: the user says the run failed (blame then always ranks suspects); neither option is stored.
   * `stepScores: 'notable'`: step_scores keeps only steps with a failed check or no full score, and the
   * ids of steps whose every check passed go to step_scores_passed (for runs read in parts); default 'all'.
   */
  blameRun: z.object({ runId, expected: z.string().max(100_000).optional(), failed: z.boolean().optional(), stepScores: z.enum(['all', 'notable']).optional() }).strict(),
  /** Every check of the named steps, as the run's blame scored them (a step listed only in step_scores_passed, itemised when its panel opens). */
  getStepScores: z.object({ runId, stepIds: z.array(z.string().min(1).max(10_000)).min(1).max(1000) }).strict(),
  /** Stores what the user says about a run ("Mark as failed…", optionally with the expected answer); `failed: false` with `clear` removes it. */
  markRun: z
    .object({ runId, failed: z.boolean(), expected: z.string().max(100_000).optional(), note: z.string().max(10_000).optional(), clear: z.boolean().optional() })
    .strict(),
  diffRuns: z.object({ runA: runId, runB: runId }).strict(),
  renderReport: z.object({ runId, format: z.enum(REPORT_FORMATS) }).strict(),
  exportRun: z.object({ runId, format: z.enum(['otlp']) }).strict(),
  getInfo: z.object({}).strict(),
  /** What a fork would re-run and cost, and the command it needs approved; runs nothing. */
  estimateExperiment: z.object({ runId, at: stepRef, edit: forkEditSchema, n: trialsPerArm, env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(200)).max(100).optional() }).strict(),
  /** Starts a fork experiment; resolves at once (progress as 'experiment-progress' events) unless `wait`. */
  startExperiment: z
    .object({
      runId,
      at: stepRef,
      edit: forkEditSchema,
      n: trialsPerArm,
      parallel: z.number().int().min(1).max(64).optional(),
      timeoutS: z.number().min(0.1).max(86_400).optional(),
      oracle: oracleSchema.optional(),
      maxTrials: z.number().int().min(2).max(100_000).optional(),
      tokenCeiling: z.number().positive().optional(),
      label: z.string().max(200).optional(),
      /** The user was shown the command (from estimateExperiment) and approves it. */
      approve: z.boolean().optional(),
      clopperPearson: z.boolean().optional(),
      wait: z.boolean().optional(),
      /** estimate.approval.sha (or a prefix of 16+ hex digits): binds the approval to what was shown. */
      approvedCommand: approvalSha.optional(),
      /** Extra environment variable names the trials receive. */
      env: envNames.optional(),
    })
    .strict(),
  listExperiments: z.object({ runId: runId.optional(), limit: z.number().int().min(1).max(10_000).optional() }).strict(),
  getExperiment: z.object({ experimentId: z.string().min(1).max(200) }).strict(),
  cancelExperiment: z.object({ experimentId: z.string().min(1).max(200) }).strict(),
  /** Forks at each blamed step with a passing run's output there; resolves when all experiments end. */
  confirmBlame: z
    .object({
      runId,
      referenceRunId: runId.optional(),
      candidates: z.array(stepRef).min(1).max(20).optional(),
      maxCandidates: z.number().int().min(1).max(20).optional(),
      /** 'differing': also test every step whose output differs from the passing run's. */
      scope: z.enum(['blamed', 'differing']).optional(),
      n: trialsPerArm,
      parallel: z.number().int().min(1).max(64).optional(),
      timeoutS: z.number().min(0.1).max(86_400).optional(),
      approve: z.boolean().optional(),
      approvedCommand: approvalSha.optional(),
      env: envNames.optional(),
    })
    .strict(),
  /** What the root-cause agent would send for a failed run: model, token estimate, cost, budget. Sends nothing. */
  estimateExplain: z.object({ runId, budgetUsd: z.number().positive().max(1000).optional() }).strict(),
  /** The one model call (never automatic); refused above the budget; the answer is stored with the run. */
  explainRun: z.object({ runId, budgetUsd: z.number().positive().max(1000).optional() }).strict(),
  getExplanation: z.object({ runId }).strict(),
  /** Runs the stored explanation's candidates that carry an edit as fork experiments and re-ranks them by effect. */
  verifyExplanation: z
    .object({ runId, n: trialsPerArm, parallel: z.number().int().min(1).max(64).optional(), approve: z.boolean().optional(), approvedCommand: approvalSha.optional() })
    .strict(),
  listMotifs: z.object({}).strict(),
  exportMotifs: z.object({}).strict(),
  /** `content`: a motif file's text; `name`: the file, named in errors. */
  importMotifs: z.object({ content: z.string().max(50_000_000), name: z.string().min(1).max(4096) }).strict(),
  forgetMotif: z.object({ motifId: z.string().min(1).max(200) }).strict(),
  /** The user accepts blame's finding at `at` and says what that step should have produced: remembered as a motif. */
  learnMotif: z.object({ runId, at: stepRef, output: z.json() }).strict(),
  /** The remembered motifs closest to a failed run ([] for a healthy one). */
  seenBefore: z.object({ runId }).strict(),
};

export type CallName = keyof typeof callSchemas;
export type CallArgs<K extends CallName> = z.infer<(typeof callSchemas)[K]>;

export interface EngineInfo {
  home: string;
  database: string;
  inbox: string;
  version: string;
  watching: boolean;
  /** $TRACEBACK_HOME/settings.json (it may not exist). */
  settings_file: string;
  /** Problems in that file: each named setting was ignored and its default used. Shown as a banner and a CLI warning. */
  settings_problems: string[];
}

export interface CallResults {
  listRuns: RunSummary[];
  getRun: RunDetail;
  getRunSkeleton: RunSkeleton;
  getStepPayloads: StepPayload[];
  findSteps: { hits: FindHit[]; truncated: boolean };
  importPaths: ImportReport;
  cancelImport: { cancelled: number };
  listImportErrors: ImportError[];
  blameRun: BlameResult;
  getStepScores: StepHealth[];
  /** The run's blame after the change. */
  markRun: BlameResult;
  diffRuns: DiffResult;
  /** PDF content is base64 (`encoding`); the other formats are text. */
  renderReport: { format: ReportFormat; content: string; filename: string; encoding: 'utf8' | 'base64' };
  /** The run in another tool's format (OTLP/JSON with GenAI and OpenInference attributes). */
  exportRun: { format: 'otlp'; content: string; filename: string };
  getInfo: EngineInfo;
  estimateExperiment: ExperimentEstimate;
  startExperiment: ExperimentSummary;
  listExperiments: ExperimentSummary[];
  getExperiment: ExperimentDetail;
  cancelExperiment: ExperimentSummary;
  confirmBlame: BlameConfirmation;
  estimateExplain: ExplainEstimate;
  explainRun: Explanation;
  getExplanation: Explanation | null;
  verifyExplanation: Explanation;
  listMotifs: FailureMotif[];
  exportMotifs: MotifFile;
  importMotifs: { added: number; total: number };
  forgetMotif: FailureMotif;
  learnMotif: FailureMotif;
  seenBefore: SeenBefore[];
}

export type CallResult<K extends CallName> = CallResults[K];

/** Handlers the engine implements; every transport dispatches to these. */
export type ApiHandlers = { [K in CallName]: (args: CallArgs<K>) => CallResult<K> | Promise<CallResult<K>> };

/** Events the engine pushes to every connected client. */
export interface ApiEvents {
  /** Runs were added or changed; clients refetch what they show. */
  'data-changed': { runIds: string[] };
  /** New import errors (file and line) were recorded. */
  'import-errors': { errors: ImportError[] };
  /** Desktop only: a menu command the UI carries out (e.g. File → Export Report…). */
  menu: { action: 'export-report' };
  /** A fork experiment's trial started or ended, or the experiment ended. */
  'experiment-progress': ExperimentProgress;
  /** A big file is being imported (OTLP/JSON: `index` reads every span once to plan the runs, `write` stores them; native: `write`). */
  'import-progress': ImportProgress;
}
export type EventName = keyof ApiEvents;
export const EVENT_NAMES: EventName[] = ['data-changed', 'import-errors', 'menu', 'experiment-progress', 'import-progress'];

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(callSchemas, name);
}
