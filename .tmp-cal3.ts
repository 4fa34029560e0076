import { scanText } from './src-main/engine/blame/value-features';
const s = 'Check order ORD-100123 (step 5) against ledger LG-1005. '.repeat(14000);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const out: string[] = [];
for (let r = 0; r < 20; r++) {
  const t = cpu();
  scanText(s, { values: false, shingles: false });
  out.push((cpu() - t).toFixed(1));
}
console.log(out.join(' '));
