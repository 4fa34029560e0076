import { scanText } from './src-main/engine/blame/value-features';
const s = 'Check order ORD-100123 (step 5) against ledger LG-1005. '.repeat(14000);
const small = Array.from({ length: 20000 }, (_, i) => `Check order ORD-${100000 + i} (step ${i}) against ledger LG-${1000 + (i % 97)}.`);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let r = 0; r < 6; r++) {
  const t = cpu();
  const a = scanText(s, { values: false });
  const t1 = cpu();
  const b = scanText(s);
  const t2 = cpu();
  let n = 0; for (const x of small) n += scanText(x, { values: false }).shingles.length;
  const t3 = cpu();
  console.log('big-noval', (t1 - t).toFixed(1), 'big-val', (t2 - t1).toFixed(1), 'small', (t3 - t2).toFixed(1), a.shingles.length, b.values.length, n);
}
