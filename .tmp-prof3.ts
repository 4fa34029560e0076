import { syntheticRun } from './bench/blame/synthetic-run';
import { jsonText } from './src-main/engine/scoring/json-text';
import { scanText } from './src-main/engine/blame/value-features';
const d = syntheticRun(10000);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let r = 0; r < 4; r++) {
  let t = cpu();
  const texts: string[] = [];
  for (const s of d.steps) { texts.push(jsonText(s.input, 24000)); texts.push(jsonText(s.output, 24000)); }
  const t1 = cpu();
  let nv = 0, ns = 0;
  for (const x of texts) { const sc = scanText(x, { k: 5, maxChars: 24000 }); nv += sc.values.length; ns += sc.shingles.length; }
  const t2 = cpu();
  const m = new Map<number, number>(); let i = 0;
  for (const x of texts) { const sc = scanText(x, { k: 5, maxChars: 24000, values: false }); for (const h of sc.shingles) m.set(h, i++); }
  const t3 = cpu();
  console.log('jsonText', (t1 - t).toFixed(1), 'scan', (t2 - t1).toFixed(1), 'shingle-only+map', (t3 - t2).toFixed(1), nv, ns, texts.reduce((a, b) => a + b.length, 0));
}
