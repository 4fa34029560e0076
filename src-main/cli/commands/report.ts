import fs from 'node:fs';
import path from 'node:path';
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { REPORT_FORMATS, type ReportFormat } from '../../../src-shared/api';

export const reportCommand: Command = {
  name: 'report',
  readsRuns: true,
  usage: `tb report RUN --format ${REPORT_FORMATS.join('|')} -o FILE`,
  summary: 'write a blame report (Markdown, self-contained HTML, JSON, or PDF through headless Chromium)',
  flags: { values: ['format', 'o', 'output'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id');
    const format = (ctx.args.values.format ?? 'md') as ReportFormat;
    if (!REPORT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(', ')}`);
    const outFile = ctx.args.values.o ?? ctx.args.values.output;
    const engine = ctx.engine();
    if (format === 'pdf' && !outFile) throw new UsageError('a PDF report needs -o FILE');
    const rendered = await callEngine(engine, 'renderReport', { runId, format });
    if (outFile) {
      fs.writeFileSync(path.resolve(outFile), Buffer.from(rendered.content, rendered.encoding === 'base64' ? 'base64' : 'utf8'));
    } else {
      ctx.content(rendered.content);
      return EXIT_OK;
    }
    if (ctx.args.booleans.has('json')) ctx.json({ file: path.resolve(outFile), format });
    else ctx.err(`wrote ${path.resolve(outFile)}`);
    return EXIT_OK;
  },
};
