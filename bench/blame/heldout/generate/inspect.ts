// Dev aid: prints each held-out run's steps (name, type, parent) and import warnings. Not a blame tool.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectForeignFormat, parseForeignFile } from '../../../../src-main/engine/ingest/foreign/index';
import { HELDOUT_DIR, heldoutLabels, importHeldoutFile } from '../load-heldout';

const only = process.argv[2];
const labels = heldoutLabels();
let bad = 0;
for (const [file, label] of Object.entries(labels)) {
  if (only && !file.includes(only)) continue;
  try {
    const d = importHeldoutFile(file);
    const text = readFileSync(join(HELDOUT_DIR, file), 'utf8');
    const { errors } = parseForeignFile(text, detectForeignFormat(text.slice(0, 65536), file)!, file);
    const byId = new Map(d.steps.map((s) => [s.step_id, s]));
    const depth = (s: (typeof d.steps)[number]): number => (s.parent_id && byId.get(s.parent_id) ? 1 + depth(byId.get(s.parent_id)!) : 0);
    const matches = d.steps.filter((s) => s.name === label.culprit);
    const ok = label.culprit === '' || matches[label.culprit_occurrence ?? 0] !== undefined;
    const altsOk = label.alternates.every((a) => d.steps.some((s) => s.name === a));
    if (!ok || !altsOk) bad++;
    console.log(`\n== ${file} [${label.class}] culprit=${JSON.stringify(label.culprit)}#${label.culprit_occurrence ?? 0} ${ok ? 'OK' : 'MISSING'} alts ${altsOk ? 'OK' : 'MISSING'} steps=${d.steps.length} status=${d.run.status}`);
    for (const w of errors) console.log(`   ${w.level}: ${w.message.slice(0, 160)}`);
    if (only) for (const s of d.steps) console.log(`   ${'  '.repeat(depth(s))}${s.index} ${s.name} [${s.type}] ${s.status} ${s.duration_ms?.toFixed(0)}ms out=${JSON.stringify(s.output).slice(0, 90)}`);
  } catch (e) {
    bad++;
    console.log(`\n!! ${file}: ${(e as Error).message}`);
  }
}
console.log(`\n${bad} problem(s)`);
