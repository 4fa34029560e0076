/**
 * `npm run bench`: every benchmark prints its numbers next to a baseline
 * measured in the same run (ratios, not absolute times: this machine is shared
 * and noisy). Benchmarks print; they never gate CI.
 */
import { benchImport } from './import-throughput';

interface Bench {
  name: string;
  run: () => Promise<{ lines: string[] }>;
  /** Left out of a run of every benchmark (too long); run by naming it. */
  onlyWhenNamed?: boolean;
}

const only = process.argv.slice(2);
const BENCHES: Bench[] = [
  { name: 'sdk', run: async () => (await import('./sdk-overhead')).benchSdkOverhead() },
  { name: 'import', run: () => benchImport() },
  { name: 'many-runs', run: async () => ({ lines: (await import('./many-runs')).benchManyRuns() }) },
  { name: 'langchain-large', onlyWhenNamed: true, run: async () => ({ lines: (await import('./langchain-large-file')).benchLangChainLargeFile() }) },
  { name: 'blame', run: async () => (await import('./blame/run-blame-bench')).benchBlame() },
  { name: 'fork', run: async () => (await import('./fork-overhead')).benchFork() },
  { name: 'store', run: async () => (await import('./store-at-size')).benchStore() },
  { name: 'pages', run: async () => (await import('./run-pages')).benchPages() },
  { name: 'learning', run: async () => (await import('./learning/run-learning-bench')).benchLearning() },
];

for (const b of BENCHES.filter((x) => (only.length === 0 && !x.onlyWhenNamed) || only.includes(x.name))) {
  console.log(`\n== ${b.name} ==`);
  try {
    const r = await b.run();
    console.log(r.lines.join('\n'));
  } catch (err) {
    console.log(`benchmark ${b.name} failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  }
}
