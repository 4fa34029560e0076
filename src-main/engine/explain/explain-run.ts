/**
 * `tb explain RUN` / "Explain with a model…": one model call over a compacted,
 * redacted view of a failed run, its answer checked by the evidence gate and
 * compared with the deterministic blame (docs/explain.md). Never automatic:
 * the estimate (model, tokens, cost) is computed first and the call refused
 * above the budget.
 */
import type { BlameResult } from '../../../src-shared/analysis';
import type { ExplainEstimate, Explanation } from '../../../src-shared/explain';
import type { FailureMotif } from '../../../src-shared/motifs';
import type { RunDetail } from '../../../src-shared/model';
import { EngineError } from '../../../src-shared/result';
import type { Settings } from '../scoring/settings';
import { REPORT_TOOL, SYSTEM_PROMPT, userMessage } from './agent-prompt';
import { parseAnswer } from './answer-schema';
import { compactRun, fullTextSteps } from './compact-run';
import { gateCandidates } from './evidence-gate';
import type { RootCauseModel } from './model-client';
import { outgoingRedactor, type OutgoingRedactor } from './redact-outgoing';

export type ExplainSettings = Settings['explain'];

/** Characters per token for ASCII text: the usual rule of thumb for English and JSON (the API's own count needs the network). */
const CHARS_PER_TOKEN = 3.5;

/**
 * An upper-leaning token count: ASCII at 3.5 characters a token, every other character as a
 * token of its own (CJK text and emoji run near one token per character), so a non-English
 * trace is not estimated at a third of what it costs.
 */
function estimateTokens(text: string): number {
  let other = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) other++;
  return Math.ceil((text.length - other) / CHARS_PER_TOKEN + other);
}

export interface ExplainInput {
  run: RunDetail;
  blame: BlameResult;
  similar: FailureMotif[];
  settings: ExplainSettings;
}

interface Prepared {
  estimate: ExplainEstimate;
  message: string;
  redactor: OutgoingRedactor;
}

export function prepareExplain(i: ExplainInput, budgetUsd?: number): Prepared {
  if (i.blame.healthy) {
    throw new EngineError('bad_request', `run ${i.run.run.run_id} looks healthy: there is no failure to explain (say it failed with tb mark RUN --failed)`);
  }
  const s = i.settings;
  const redactor = outgoingRedactor(s.redact_patterns as string[], s.redact_keys as string[]);
  const message = userMessage(compactRun(i.run, i.blame, { fullTextChars: s.full_text_chars, redactor, similar: i.similar }));
  const inputTokens = estimateTokens(SYSTEM_PROMPT + message + JSON.stringify(REPORT_TOOL));
  const cost = (inputTokens * s.input_usd_per_mtok + s.max_output_tokens * s.output_usd_per_mtok) / 1_000_000;
  const budget = budgetUsd ?? s.budget_usd;
  return {
    message,
    redactor,
    estimate: {
      model: s.model,
      input_tokens: inputTokens,
      max_output_tokens: s.max_output_tokens,
      cost_usd: Math.round(cost * 10_000) / 10_000,
      budget_usd: budget,
      within_budget: cost <= budget,
      full_text_steps: fullTextSteps(i.blame),
      redactions: redactor.count(),
    },
  };
}

/** `model` is asked for only after the budget check, so a call over budget needs no key. */
export async function explainRun(i: ExplainInput, model: () => RootCauseModel, opts: { budgetUsd?: number; now?: number } = {}): Promise<Explanation> {
  const { estimate, message, redactor } = prepareExplain(i, opts.budgetUsd);
  if (!estimate.within_budget) {
    throw new EngineError(
      'bad_request',
      `the call would cost up to $${estimate.cost_usd.toFixed(4)}, over the budget of $${estimate.budget_usd.toFixed(4)} (explain.budget_usd in settings, or --budget)`,
    );
  }
  const reply = await model().ask(message, { model: i.settings.model, maxTokens: i.settings.max_output_tokens });
  const base = {
    run_id: i.run.run.run_id,
    model: i.settings.model,
    created_at: opts.now ?? Date.now(),
    estimate,
    usage: reply.usage,
    blame_top_step_id: i.blame.blamed[0]?.step_id ?? null,
  };
  if (!reply.called) {
    const said = reply.text ? `: "${reply.text.slice(0, 500)}"` : '';
    const why = reply.stopReason === 'refusal' ? 'the model refused to answer' : `the model did not call the tool (stop reason ${reply.stopReason ?? 'unknown'})`;
    return { ...base, candidates: [], rejected: [], disagrees_with_blame: false, note: `${why}${said}; no candidate` };
  }
  const parsed = parseAnswer(reply.toolInput);
  if (!parsed.ok) {
    return { ...base, candidates: [], rejected: [], disagrees_with_blame: false, note: `the model's answer was malformed and was rejected (${parsed.problem}); no candidate` };
  }
  // Quotes may have been copied from the redacted view: those count too.
  const redactedForms = (text: string) => [redactor.text(text)];
  const gated = gateCandidates(
    i.run,
    parsed.candidates,
    {
      min_confidence: i.settings.min_confidence,
      min_quote_overlap: i.settings.min_quote_overlap,
      min_quote_words: i.settings.min_quote_words,
      min_quote_chars: i.settings.min_quote_chars,
      vague_words: i.settings.vague_words,
    },
    redactedForms,
    { fullTextSteps: new Set(fullTextSteps(i.blame)), fullTextChars: i.settings.full_text_chars },
  );
  const top = gated.accepted[0]?.step_id ?? null;
  return {
    ...base,
    candidates: gated.accepted,
    rejected: gated.rejected,
    disagrees_with_blame: top !== null && base.blame_top_step_id !== null && top !== base.blame_top_step_id,
    note: gated.accepted.length === 0 ? 'no candidate passed the evidence gate' : null,
  };
}
