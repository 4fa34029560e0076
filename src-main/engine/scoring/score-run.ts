/**
 * Scores every step of a run. A step's score is the lowest of its checks
 * (the worst problem sets it: a step with one fatal flaw is not "mostly
 * fine"); null when no check applied. Steps marked `metadata.duplicate_of`
 * are the same LLM call recorded by a second instrumentation layer: they are
 * listed but never scored, so nothing is counted twice.
 */
import type { StepHealth } from '../../../src-shared/analysis';
import type { RunDetail, Score, Step } from '../../../src-shared/model';
import { makeCheck, NO_CHECKS, toScore, type Check } from './check';
import { classifyError } from './error-class';
import { quoteStep } from '../text/evidence-quote';
import { bm25Relevance, type RelevanceProvider } from './relevance';
import { scoreLlm } from './score-llm';
import { scorePrompt } from './score-prompt';
import { scoreRetrieval, type TermBackground } from './score-retrieval';
import { errorShapeOf, scoreTool, type ToolStats } from './score-tool';
import type { Settings } from './settings';

export interface ScoringContext {
  settings: Settings;
  /** Historical calls and failures per tool name, from the database. */
  toolStats: ToolStats;
  /** Replaces the default BM25 relevance (e.g. embeddingRelevance(...)). */
  relevance?: RelevanceProvider;
  /** Terms the pipeline's other runs ask about most of the time (see themeOnlyMatch). */
  background?: TermBackground;
}

/**
 * A step's checks and score, index-aligned with the run's steps. It does not hold the step: most steps of a
 * large run only ended fine and share one frozen assessment, so scoring a 100,000-step run makes no object
 * per such step (they lived as long as the blame and were copied by every scavenge; profiled).
 */
export interface StepAssessment {
  checks: Check[];
  score: number | null;
  /** The check that set the score (lowest value), if any. */
  worst: Check | null;
  duplicateOf: string | null;
}

export function duplicateOf(step: Step): string | null {
  const d = step.metadata?.duplicate_of;
  return typeof d === 'string' && d !== '' && d !== step.step_id ? d : null;
}

function statusChecks(step: Step, settings: Settings, runStillGoing: boolean): Check[] {
  if (step.status === 'error') {
    const err = step.error;
    const { origin, why } = classifyError(err);
    const text = err ? `${err.type ? `${err.type}: ` : ''}${err.message ?? ''}`.trim() : 'failed without error details';
    return [
      makeCheck('status', 'status.error', 0, `raised ${text.slice(0, 200)} (${origin === 'unknown' ? why : `${origin} fault: ${why}`})`, {
        hard: true,
        evidence: (err?.message ? quoteStep(step, 'error', err.message.split('\n')[0].slice(0, 140)) : null) ?? quoteStep(step, 'error'),
      }),
    ];
  }
  if (step.status === 'running') {
    return [
      makeCheck('status', 'status.unfinished', runStillGoing ? 1 : settings.scoring.unfinished_score, runStillGoing ? 'still running' : 'never finished: the run stopped while this step was running', {
        hard: !runStillGoing,
        evidence: quoteStep(step, 'input'),
      }),
    ];
  }
  return ONLY_OK;
}

// Most steps end fine: one shared, frozen check instead of one object per step.
const STATUS_OK: Check = Object.freeze(makeCheck('status', 'status.ok', 1, 'ended without error')) as Check;
const ONLY_OK: Check[] = Object.freeze([STATUS_OK]) as Check[];
// What assessStep computes for a step with only STATUS_OK (its worst check), shared by all such steps.
const ONLY_OK_ASSESSMENT: StepAssessment = Object.freeze({ checks: ONLY_OK, score: STATUS_OK.value, worst: STATUS_OK, duplicateOf: null });

function userChecks(step: Step): Check[] {
  if (step.user_scores.length === 0) return NO_CHECKS;
  return step.user_scores.map((s) =>
    makeCheck('user', `user.${s.name}`, Number.isFinite(s.value) ? s.value : 0, `was scored "${s.name}" ${s.value} by the user${s.explanation ? ` (${s.explanation})` : ''}`),
  );
}

function assessStep(step: Step, ctx: ScoringContext, relevance: RelevanceProvider, runInput: RunDetail['run']['input'], runStillGoing: boolean): StepAssessment {
  const dup = duplicateOf(step);
  if (dup !== null) {
    return {
      checks: [makeCheck('structure', 'duplicate', 1, `the same call as step ${dup}, recorded by a second instrumentation layer: not scored twice`, { info: true })],
      score: null,
      worst: null,
      duplicateOf: dup,
    };
  }
  const settings = ctx.settings;
  const status = statusChecks(step, settings, runStillGoing);
  let more: Check[] = NO_CHECKS;
  switch (step.type) {
    case 'retrieval':
      more = scoreRetrieval(step, settings, relevance, runInput, ctx.background);
      break;
    case 'llm':
      more = scoreLlm(step, settings);
      break;
    case 'tool':
      more = scoreTool(step, settings, ctx.toolStats);
      break;
    case 'prompt':
      more = scorePrompt(step, settings);
      break;
    case 'generic': {
      const shape = step.status === 'ok' ? errorShapeOf(step.output) : null;
      if (shape?.hard) {
        more = [
          makeCheck('tool', 'tool.error_payload', settings.scoring.tool.error_payload_score, `returned without raising, but ${shape.why}: "${shape.quote}"`, {
            hard: true,
            evidence: quoteStep(step, 'output', shape.quote),
          }),
        ];
      }
      break;
    }
    default:
      break;
  }
  // Most steps of a large run only ended fine: they share one frozen list instead of one array each.
  if (more.length === 0 && step.user_scores.length === 0 && status === ONLY_OK) return ONLY_OK_ASSESSMENT;
  const checks = status.concat(more, userChecks(step));
  let worst: Check | null = null;
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i];
    if (c.info) continue;
    if (worst === null || c.value < worst.value) worst = c;
  }
  return { checks, score: worst === null ? null : worst.value, worst, duplicateOf: null };
}

/** The step's check of that name (a loop, not .find: this runs for every step of large runs). */
export function checkNamed(a: StepAssessment, name: string): Check | undefined {
  const checks = a.checks;
  for (let i = 0; i < checks.length; i++) if (checks[i].name === name) return checks[i];
  return undefined;
}

export function assessRun(detail: RunDetail, ctx: ScoringContext): StepAssessment[] {
  const relevance = ctx.relevance ?? bm25Relevance(ctx.settings);
  const going = detail.run.status === 'running';
  return detail.steps.map((s) => assessStep(s, ctx, relevance, detail.run.input, going));
}

// The checks of a step that only ended fine, shared by all such steps (most of a large run).
let okOnly: Score[] | null = null;

/** The health of `step`, whose assessment is `a`. */
export function healthOf(a: StepAssessment, step: Step): StepHealth {
  const onlyOk = a.checks.length === 1 && a.checks[0] === STATUS_OK;
  return {
    step_id: step.step_id,
    name: step.name,
    type: step.type,
    index: step.index,
    score: a.score === null ? null : Math.round(a.score * 1000) / 1000,
    checks: onlyOk ? (okOnly ??= Object.freeze([toScore(STATUS_OK)]) as Score[]) : a.checks.map(toScore),
  };
}

export function scoreRun(detail: RunDetail, ctx: ScoringContext): StepHealth[] {
  return assessRun(detail, ctx).map((a, i) => healthOf(a, detail.steps[i]));
}
