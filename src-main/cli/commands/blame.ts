import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { oneLine, safeText } from '../format-text';
import type { BlameResult } from '../../../src-shared/analysis';

function printSignals(b: BlameResult, out: (l: string) => void, max: number): void {
  const signals = b.detection?.signals ?? b.failure?.signals ?? [];
  if (signals.length === 0) return;
  out('Failure signals:');
  for (const s of signals.slice(0, max)) out(`  ${s.strength.toFixed(2)}  ${s.name}: ${oneLine(safeText(s.description), 140)}`);
}

export function printBlame(b: BlameResult, out: (l: string) => void): void {
  if (b.healthy) {
    if (b.detection?.status === 'unknown') {
      out(`Run ${b.run_id} may have failed (${safeText(b.detection.description)}), but no signal is strong enough to call it failed: no step is blamed.`);
      out('Say "this run failed" with: tb blame RUN --failed [--expected TEXT]');
      printSignals(b, out, 5);
      return;
    }
    out(`Run ${b.run_id} looks healthy: no step is blamed.`);
    return;
  }
  out(`Run ${b.run_id} failed: ${b.failure ? safeText(b.failure.description) : 'unknown reason'}`);
  out('');
  b.blamed.forEach((s, i) => {
    out(`${i + 1}. ${safeText(s.name)} [${s.type}] step #${s.index}  blame ${s.score.toFixed(2)}  confidence ${s.confidence}`);
    out(`   ${safeText(s.reason)}`);
    for (const e of s.evidence.slice(0, 3)) out(`   evidence (${e.field}): "${oneLine(e.quote, 100)}"`);
  });
  if (b.co_blamed.length) out(`\nCo-blamed (near tie): ${b.co_blamed.map((s) => safeText(s.name)).join(', ')}`);
  if (b.symptoms.length) {
    out('\nSymptoms (failed because of an upstream cause):');
    for (const s of b.symptoms) out(`  ${safeText(s.name)}: ${safeText(s.reason)}`);
  }
  out('');
  printSignals(b, out, 5);
  if (b.seen_before?.length) {
    out('\nSeen before (remembered failure motifs; tb motifs):');
    for (const m of b.seen_before) out(`  ${m.similarity.toFixed(2)}  ${oneLine(safeText(m.name), 100)}  (${m.motif_id}${m.source_run_id ? `, run ${m.source_run_id}` : ''}${m.experiment_id ? `, experiment ${m.experiment_id}` : ''})`);
  }
}

export const blameCommand: Command = {
  name: 'blame',
  readsRuns: true,
  usage: 'tb blame RUN [--failed] [--expected TEXT] [--json]',
  summary: 'name the step that caused a failed run, with a reason you can check (silent on healthy runs; --failed: the run failed, rank the suspects)',
  flags: { values: ['expected'], booleans: ['failed'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id (or a unique prefix)');
    const expected = ctx.args.values.expected;
    if (expected !== undefined && expected.trim() === '') throw new UsageError('--expected needs the text the answer should contain');
    const failed = ctx.args.booleans.has('failed') ? true : undefined;
    const b = await callEngine(ctx.engine(), 'blameRun', { runId, ...(expected !== undefined ? { expected } : {}), ...(failed ? { failed } : {}) });
    if (ctx.args.booleans.has('json')) ctx.json(b);
    else printBlame(b, ctx.out);
    return EXIT_OK;
  },
};
