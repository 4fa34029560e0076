import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { duration, isoTime, oneLine, safeText } from '../format-text';
import type { Step } from '../../../src-shared/model';

function depthOf(steps: Step[]): Map<string, number> {
  const byId = new Map(steps.map((s) => [s.step_id, s]));
  const depth = new Map<string, number>();
  const of = (s: Step): number => {
    const known = depth.get(s.step_id);
    if (known !== undefined) return known;
    const parent = s.parent_id ? byId.get(s.parent_id) : undefined;
    const d = parent && parent !== s ? of(parent) + 1 : 0;
    depth.set(s.step_id, d);
    return d;
  };
  steps.forEach(of);
  return depth;
}

export const showCommand: Command = {
  name: 'show',
  usage: 'tb show RUN [--json]',
  summary: 'show a run and its steps in start order (RUN: id or unique prefix)',
  flags: {},
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('tb show needs a run id (or a unique prefix)');
    const detail = await callEngine(ctx.engine(), 'getRun', { runId });
    if (ctx.args.booleans.has('json')) {
      ctx.json(detail);
      return EXIT_OK;
    }
    const { run, steps } = detail;
    ctx.out(`Run ${run.run_id}  ${safeText(run.pipeline)}`);
    ctx.out(`  status ${run.status}${run.verdict ? `, verdict ${run.verdict.pass ? 'pass' : 'FAIL'}${run.verdict.detail ? ` (${oneLine(run.verdict.detail, 80)})` : ''}` : ''}`);
    ctx.out(`  started ${isoTime(run.started_at)}, took ${duration(run.duration_ms)}, ${steps.length} steps, source ${run.source_format}`);
    if (run.input !== null) ctx.out(`  input  ${oneLine(run.input, 110)}`);
    if (run.output !== null) ctx.out(`  output ${oneLine(run.output, 110)}`);
    if (run.error) ctx.out(`  error  ${oneLine(`${run.error.type}: ${run.error.message}`, 110)}`);
    ctx.out('');
    const depth = depthOf(steps);
    for (const s of steps) {
      const pad = '  '.repeat(depth.get(s.step_id) ?? 0);
      const mark = s.status === 'error' ? '✗' : s.status === 'running' ? '…' : '✓';
      ctx.out(`${String(s.index).padStart(4)} ${pad}${mark} ${safeText(s.name)} [${s.type}] ${duration(s.duration_ms)}${s.model ? ` ${safeText(s.model)}` : ''}`);
      if (s.error) ctx.out(`     ${pad}  error: ${oneLine(`${s.error.type}: ${s.error.message}`, 100)}`);
      else if (s.output !== null) ctx.out(`     ${pad}  → ${oneLine(s.output, 100)}`);
    }
    return EXIT_OK;
  },
};
