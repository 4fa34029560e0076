import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { oneLine, safeText } from '../format-text';
import type { BlameResult } from '../../../src-shared/analysis';

export function printBlame(b: BlameResult, out: (l: string) => void): void {
  if (b.healthy) {
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
}

export const blameCommand: Command = {
  name: 'blame',
  usage: 'tb blame RUN [--expected TEXT] [--json]',
  summary: 'name the step that caused a failed run, with a reason you can check (silent on healthy runs)',
  flags: { values: ['expected'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('tb blame needs a run id (or a unique prefix)');
    const expected = ctx.args.values.expected;
    const b = await callEngine(ctx.engine(), 'blameRun', { runId, ...(expected !== undefined ? { expected } : {}) });
    if (ctx.args.booleans.has('json')) ctx.json(b);
    else printBlame(b, ctx.out);
    return EXIT_OK;
  },
};
