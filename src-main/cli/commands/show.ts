import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { duration, isoTime, oneLine, safeLine } from '../format-text';
import type { Step } from '../../../src-shared/model';

/** Indentation depth of each step. Iterative and memoized: a 50,000-deep chain must not overflow the stack. */
function depthOf(steps: Step[]): Map<string, number> {
  const byId = new Map(steps.map((s) => [s.step_id, s]));
  const depth = new Map<string, number>();
  for (const s of steps) {
    const chain: Step[] = [];
    const seen = new Set<string>();
    let cur: Step | undefined = s;
    while (cur && !depth.has(cur.step_id) && !seen.has(cur.step_id)) {
      seen.add(cur.step_id);
      chain.push(cur);
      cur = cur.parent_id ? byId.get(cur.parent_id) : undefined;
    }
    let d = cur && depth.has(cur.step_id) ? depth.get(cur.step_id)! + 1 : 0;
    for (let i = chain.length - 1; i >= 0; i--) depth.set(chain[i].step_id, d++);
  }
  return depth;
}

/** Deepest indentation printed; deeper steps print at this depth with their level shown. */
const MAX_INDENT = 40;

export const showCommand: Command = {
  name: 'show',
  readsRuns: true,
  usage: 'tb show RUN [--json]',
  summary: 'show a run and its steps in start order (RUN: id or unique prefix)',
  flags: {},
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id (or a unique prefix)');
    const detail = await callEngine(ctx.engine(), 'getRun', { runId });
    if (ctx.args.booleans.has('json')) {
      ctx.json(detail);
      return EXIT_OK;
    }
    const { run, steps } = detail;
    ctx.out(`Run ${safeLine(run.run_id)}  ${safeLine(run.pipeline)}`);
    ctx.out(`  status ${run.status}${run.verdict ? `, verdict ${run.verdict.pass ? 'pass' : 'FAIL'}${run.verdict.detail ? ` (${oneLine(run.verdict.detail, 80)})` : ''}` : ''}`);
    ctx.out(`  started ${isoTime(run.started_at)}, took ${duration(run.duration_ms)}, ${steps.length} steps, source ${safeLine(run.source_format)}${run.origin === 'foreign' ? ` (imported from ${safeLine(run.source_file ?? 'a file')}: never used as a reference or live input without your say)` : ''}`);
    if (run.input !== null) ctx.out(`  input  ${oneLine(run.input, 110)}`);
    if (run.output !== null) ctx.out(`  output ${oneLine(run.output, 110)}`);
    if (run.error) ctx.out(`  error  ${oneLine(`${run.error.type}: ${run.error.message}`, 110)}`);
    ctx.out('');
    const depth = depthOf(steps);
    for (const s of steps) {
      const d = depth.get(s.step_id) ?? 0;
      const pad = d > MAX_INDENT ? `${'  '.repeat(MAX_INDENT)}[${d}] ` : '  '.repeat(d);
      const mark = s.status === 'error' ? '✗' : s.status === 'running' ? '…' : '✓';
      ctx.out(`${String(s.index).padStart(4)} ${pad}${mark} ${safeLine(s.name)} [${safeLine(s.type)}] ${duration(s.duration_ms)}${s.model ? ` ${safeLine(s.model)}` : ''}`);
      if (s.error) ctx.out(`     ${pad}  error: ${oneLine(`${s.error.type}: ${s.error.message}`, 100)}`);
      else if (s.output !== null) ctx.out(`     ${pad}  → ${oneLine(s.output, 100)}`);
    }
    return EXIT_OK;
  },
};
