import fs from 'node:fs';
import path from 'node:path';
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { oneLine, safeText } from '../format-text';
import { motifFilePath } from '../../engine/motifs/motif-service';

export const motifsCommand: Command = {
  name: 'motifs',
  usage: 'tb motifs [--json] | tb motifs export [FILE] | tb motifs import FILE | tb motifs forget ID | tb motifs learn RUN --at STEP --output JSON',
  summary: 'failure motifs learned from confirmed causes ("seen before", pitfalls, the SDK guard): list, share, forget',
  flags: { values: ['at', 'output'] },
  async run(ctx) {
    const [action, arg] = ctx.args.positional;
    const engine = ctx.engine();
    const json = ctx.args.booleans.has('json');
    if (action === undefined || action === 'list') {
      const motifs = await callEngine(engine, 'listMotifs', {});
      if (json) ctx.json(motifs);
      else if (motifs.length === 0) ctx.out('No failure motifs yet: they are learned when a blame confirmation (tb fork RUN --confirm-blame) or a verified explanation proves a cause.');
      else {
        for (const m of motifs) {
          ctx.out(`${m.motif_id}  ${m.origin}  ${safeText(m.step_signature)} [${m.step_type}]  ${oneLine(safeText(m.name), 100)}`);
          ctx.out(`   required: ${oneLine(safeText(m.requirement), 140)}`);
          if (m.proof) ctx.out(`   proved by ${safeText(m.proof.experiment_id)}: pass ${m.proof.treatment_pass_rate.toFixed(2)} with the fix vs ${m.proof.control_pass_rate.toFixed(2)}, p = ${m.proof.p_value.toPrecision(2)}`);
          ctx.out(`   learned from run ${safeText(m.learned_from_run ?? 'unknown')}${m.source_run_id ? '' : ' (not in this database)'}`);
        }
      }
      return EXIT_OK;
    }
    if (action === 'export') {
      const file = path.resolve(arg ?? motifFilePath(engine.paths));
      const content = await callEngine(engine, 'exportMotifs', {});
      fs.writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
      if (json) ctx.json({ file, motifs: content.motifs.length });
      else ctx.out(`wrote ${content.motifs.length} motif(s) to ${file}`);
      return EXIT_OK;
    }
    if (action === 'import') {
      if (!arg) throw new UsageError('import needs a motif file');
      const file = path.resolve(arg);
      const r = await callEngine(engine, 'importMotifs', { content: fs.readFileSync(file, 'utf8'), name: file });
      if (json) ctx.json(r);
      else ctx.out(`imported ${r.added} new motif(s) from ${file}; ${r.total} in all`);
      return EXIT_OK;
    }
    if (action === 'forget') {
      if (!arg) throw new UsageError('forget needs a motif id (or a unique prefix)');
      const m = await callEngine(engine, 'forgetMotif', { motifId: arg });
      if (json) ctx.json(m);
      else ctx.out(`forgot ${m.motif_id}: ${oneLine(safeText(m.name), 100)}`);
      return EXIT_OK;
    }
    if (action === 'learn') {
      // The user accepts blame's finding at STEP and says what the step should have produced.
      const at = ctx.args.values.at;
      const raw = ctx.args.values.output;
      if (!arg || !at || raw === undefined) throw new UsageError('learn needs RUN --at STEP --output JSON (what that step should have produced)');
      let output: unknown;
      try {
        output = JSON.parse(raw);
      } catch (err) {
        throw new UsageError(`--output is not JSON: ${(err as Error).message}`);
      }
      const m = await callEngine(engine, 'learnMotif', { runId: arg, at, output });
      if (json) ctx.json(m);
      else ctx.out(`remembered ${m.motif_id}: ${oneLine(safeText(m.name), 100)}`);
      return EXIT_OK;
    }
    throw new UsageError(`unknown action "${action}" (list, export, import, forget, learn)`);
  },
};
