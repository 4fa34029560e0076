import type { Command } from '../command';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { callEngine } from '../unwrap';
import { oneLine, safeText } from '../format-text';
import type { ExplainEstimate, Explanation, GatedCandidate } from '../../../src-shared/explain';

function printEstimate(e: ExplainEstimate, out: (l: string) => void): void {
  out(`Model ${e.model}: about ${e.input_tokens} input tokens + up to ${e.max_output_tokens} output, at most $${e.cost_usd.toFixed(4)} (budget $${e.budget_usd.toFixed(2)}).`);
  out(`Sent in full: ${e.full_text_steps.length} step(s) (the lineage path and the suspects); every other step as id, name, type and status only. ${e.redactions} value(s) redacted.`);
}

function printCandidate(c: GatedCandidate, i: number, out: (l: string) => void): void {
  // Step ids come from the model (and through it, from the trace): escaped like every other trace text.
  out(`${i + 1}. ${safeText(c.step_name ?? c.step_id)} (${safeText(c.step_id)})  ${c.category}  confidence ${c.confidence.toFixed(2)}`);
  out(`   ${oneLine(safeText(c.hypothesis), 300)}`);
  for (const q of c.evidence) out(`   ${q.grounded ? 'found' : 'NOT COUNTED'} (${q.match}) ${q.field} of ${safeText(q.step_id)}: "${oneLine(safeText(q.quote), 120)}"`);
  if (c.proposed_edit) out(`   proposed ${c.proposed_edit.kind}: ${oneLine(safeText(JSON.stringify(c.proposed_edit.value)), 160)}`);
  for (const r of c.rejected_because) out(`   dropped: ${safeText(r)}`);
}

function printExplanation(e: Explanation, out: (l: string) => void): void {
  if (e.usage) out(`Used ${e.usage.input_tokens} input and ${e.usage.output_tokens} output tokens.`);
  if (e.note) out(`Note: ${oneLine(safeText(e.note), 400)}`);
  if (e.candidates.length) {
    out('\nCandidates that passed the evidence gate:');
    e.candidates.forEach((c, i) => printCandidate(c, i, out));
  }
  if (e.rejected.length) {
    out('\nRejected by the evidence gate:');
    e.rejected.forEach((c, i) => printCandidate(c, i, out));
  }
  if (e.disagrees_with_blame) out(`\nThis disagrees with the deterministic blame, which names step ${safeText(e.blame_top_step_id ?? '')}: \`tb blame ${safeText(e.run_id.slice(0, 12))}\`.`);
  for (const v of e.verification ?? []) {
    const what = v.skipped ? `not run: ${v.skipped}` : `effect ${v.effect === null ? 'n/a' : v.effect.toFixed(2)}, p = ${v.p_value === null ? 'n/a' : v.p_value.toPrecision(2)}${v.confirmed ? ', confirmed' : ''}`;
    out(`verify ${safeText(v.step_id)}: ${what}${v.experiment_id ? ` (experiment ${v.experiment_id})` : ''}${v.motif_id ? `; remembered as ${v.motif_id}` : ''}`);
  }
}

export const explainCommand: Command = {
  name: 'explain',
  readsRuns: true,
  usage: 'tb explain RUN [--estimate] [--budget USD] [--show] [--verify -n N [--approve-command SHA]] [--json]',
  summary: 'ask a model (Claude) for the root cause of a failed run: cost shown first, quotes checked against the trace (needs a key and the network)',
  flags: { values: ['budget', 'n', 'approve-command'], booleans: ['estimate', 'show', 'verify'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id (or a unique prefix)');
    const json = ctx.args.booleans.has('json');
    const engine = ctx.engine();
    const budgetUsd = numberFlag(ctx.args, 'budget', { min: 0.0001, max: 1000 });
    if (ctx.args.booleans.has('show')) {
      const stored = await callEngine(engine, 'getExplanation', { runId });
      if (json) ctx.json(stored);
      else if (!stored) ctx.out(`Run ${runId} has no explanation yet: tb explain ${runId}`);
      else printExplanation(stored, ctx.out);
      return stored ? EXIT_OK : EXIT_CHECK_FAILED;
    }
    if (ctx.args.booleans.has('verify')) {
      const n = numberFlag(ctx.args, 'n', { min: 1, max: 500, integer: true }) ?? 5;
      // As tb fork: the trials run a command from the trace only with the hash of exactly what was shown
      // (without it the engine refuses and shows the command and its hash).
      const sha = ctx.args.values['approve-command'];
      const verified = await callEngine(engine, 'verifyExplanation', { runId, n, ...(sha ? { approvedCommand: sha } : {}) });
      if (json) ctx.json(verified);
      else printExplanation(verified, ctx.out);
      return EXIT_OK;
    }
    const estimate = await callEngine(engine, 'estimateExplain', { runId, ...(budgetUsd ? { budgetUsd } : {}) });
    if (ctx.args.booleans.has('estimate')) {
      if (json) ctx.json(estimate);
      else printEstimate(estimate, ctx.out);
      return estimate.within_budget ? EXIT_OK : EXIT_CHECK_FAILED;
    }
    // The cost is shown before the call, on stderr so that --json stays one document.
    printEstimate(estimate, ctx.err);
    const e = await callEngine(engine, 'explainRun', { runId, ...(budgetUsd ? { budgetUsd } : {}) });
    if (json) ctx.json(e);
    else printExplanation(e, ctx.out);
    return e.candidates.length ? EXIT_OK : EXIT_CHECK_FAILED;
  },
};
