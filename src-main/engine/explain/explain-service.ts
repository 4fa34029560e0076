/**
 * The root-cause agent's calls of the API contract: estimate (what would be
 * sent, its tokens and cost: nothing leaves the machine), explain (the one
 * model call; its answer stored with the run), the stored answer, and
 * verify (the accepted candidates that carry an edit, run as fork
 * experiments and re-ranked by measured effect; a confirmed output edit
 * becomes a motif).
 */
import type { ApiHandlers } from '../../../src-shared/api';
import type { BlameResult } from '../../../src-shared/analysis';
import type { CandidateVerification, Explanation } from '../../../src-shared/explain';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { Json } from '../../../src-shared/trace-format';
import { EngineError } from '../../../src-shared/result';
import type { Db } from '../store/open-database';
import { getRunDetail, resolveRunId } from '../store/read-runs';
import type { Settings } from '../scoring/settings';
import type { MotifService } from '../motifs/motif-service';
import { explainRun, prepareExplain, type ExplainInput } from './explain-run';
import { readExplanation, saveExplanation } from './explanation-store';
import { anthropicModel, type RootCauseModel } from './model-client';

type ExplainHandlers = Pick<ApiHandlers, 'estimateExplain' | 'explainRun' | 'getExplanation' | 'verifyExplanation'>;

/** The significance level at which a verified candidate counts as confirmed (the level confirm-blame uses). */
const CONFIRM_ALPHA = 0.05;
/** Verify runs at most this many candidates (the agent gives at most 3; each is an experiment). */
const MAX_VERIFIED = 2;

interface ExplainServiceDeps {
  db: Db;
  settings: () => Settings;
  blame: (runId: string) => BlameResult;
  motifs: MotifService;
  startExperiment: ApiHandlers['startExperiment'];
  /** Tests and embedders may supply the model; default: Anthropic with the key from the environment or settings. */
  model?: (settings: Settings['explain']) => RootCauseModel;
}

function defaultModel(s: Settings['explain']): RootCauseModel {
  const apiKey = process.env.ANTHROPIC_API_KEY || s.api_key;
  if (!apiKey) {
    throw new EngineError('bad_request', 'no API key for the root-cause agent: set ANTHROPIC_API_KEY, or explain.api_key in $TRACEBACK_HOME/settings.json. Nothing was sent.');
  }
  return anthropicModel({ apiKey, maxRetries: s.max_retries, timeoutMs: s.timeout_s * 1000 });
}

export function createExplainService(deps: ExplainServiceDeps): { handlers: ExplainHandlers } {
  const { db } = deps;
  const inputOf = (idOrPrefix: string): ExplainInput => {
    const runId = resolveRunId(db, idOrPrefix);
    const blame = deps.blame(runId);
    const similar = blame.healthy ? [] : deps.motifs.similarTo(runId, blame);
    return { run: getRunDetail(db, runId), blame, similar, settings: deps.settings().explain };
  };

  const verify = async (a: Parameters<ApiHandlers['verifyExplanation']>[0]): Promise<Explanation> => {
    const runId = resolveRunId(db, a.runId);
    const stored = readExplanation(db, runId);
    if (!stored) throw new EngineError('bad_request', `run ${runId} has no explanation yet: run tb explain ${runId.slice(0, 12)} first`);
    const run = getRunDetail(db, runId);
    const results: CandidateVerification[] = [];
    let approve = a.approve;
    for (const c of stored.candidates.slice(0, MAX_VERIFIED)) {
      const base: CandidateVerification = { step_id: c.step_id, experiment_id: null, effect: null, p_value: null, confirmed: false, motif_id: null, skipped: null };
      const step = run.steps.find((s) => s.step_id === c.step_id);
      if (!c.proposed_edit) base.skipped = 'the agent proposed no edit for this step';
      else if (!step) base.skipped = `the run has no step ${c.step_id}`;
      if (base.skipped || !step || !c.proposed_edit) {
        results.push(base);
        continue;
      }
      const edit: ForkEdit = c.proposed_edit.kind === 'output' ? { kind: 'output', output: c.proposed_edit.value as Json } : { kind: 'instructions', instructions: String(c.proposed_edit.value) };
      const summary = await deps.startExperiment({
        runId,
        at: step.replay_key,
        edit,
        n: a.n,
        wait: true,
        label: `verify the agent's candidate: ${step.name}`,
        ...(approve ? { approve } : {}),
        ...(a.approvedCommand ? { approvedCommand: a.approvedCommand } : {}),
        ...(a.parallel ? { parallel: a.parallel } : {}),
      });
      approve = false;
      base.experiment_id = summary.experiment_id;
      base.effect = summary.effect;
      base.p_value = summary.effect === null ? null : summary.p_value;
      base.confirmed = (summary.effect ?? 0) > 0 && summary.p_value < CONFIRM_ALPHA;
      if (base.confirmed && edit.kind === 'output') {
        const motif = deps.motifs.learn({ source: run, step, fixedOutput: edit.output, blame: deps.blame(runId), experiment: summary, origin: 'agent', hypothesis: c.hypothesis });
        base.motif_id = motif.motif_id;
      }
      results.push(base);
    }
    results.sort((x, y) => (y.effect ?? -2) - (x.effect ?? -2));
    const verified: Explanation = { ...stored, verification: results };
    saveExplanation(db, verified);
    return verified;
  };

  return {
    handlers: {
      estimateExplain: (a) => prepareExplain(inputOf(a.runId), a.budgetUsd).estimate,
      explainRun: async (a) => {
        const input = inputOf(a.runId);
        const explanation = await explainRun(input, () => (deps.model ?? defaultModel)(input.settings), { budgetUsd: a.budgetUsd });
        if (explanation.candidates.length || explanation.rejected.length) saveExplanation(db, explanation);
        return explanation;
      },
      getExplanation: (a) => readExplanation(db, resolveRunId(db, a.runId)),
      verifyExplanation: verify,
    },
  };
}
