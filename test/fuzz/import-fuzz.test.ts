/**
 * The import fuzz corpus in CI: a seeded sample of mutated trace files in
 * every format (trace-mutations.ts), at a size that takes seconds. Locally,
 * TB_FUZZ_FILES=10000 (or `npx tsx test/fuzz/run-import-fuzz.ts`) runs the
 * full corpus; TB_FUZZ_SEED picks another one.
 */
import { describe, expect, it } from 'vitest';
import { runImportFuzz, summarize } from './run-import-fuzz';
import { fuzzCase, FUZZ_FORMATS } from './trace-mutations';

const FILES = Number(process.env.TB_FUZZ_FILES ?? 600);
const SEED = Number(process.env.TB_FUZZ_SEED ?? 12);

describe('import fuzzing', () => {
  it('the corpus is reproducible from its seed and covers every format', () => {
    expect(fuzzCase(SEED, 41).bytes.equals(fuzzCase(SEED, 41).bytes)).toBe(true);
    expect(fuzzCase(SEED, 41).bytes.equals(fuzzCase(SEED + 1, 41).bytes)).toBe(false);
    expect(new Set(Array.from({ length: 12 }, (_, i) => fuzzCase(SEED, i).format))).toEqual(new Set(FUZZ_FORMATS));
  });

  it(`${FILES} mutated files: no crash, no hang, every good record kept, every bad line reported with file and line`, () => {
    const report = runImportFuzz({ seed: SEED, files: FILES });
    console.log(summarize(report));
    for (const f of report.failures.slice(0, 10)) console.log(`  case ${f.index} (${f.mutation}): ${f.problem}`);
    expect(report.files).toBe(FILES);
    expect(report.crashes).toBe(0);
    expect(report.hangs).toBe(0);
    expect(report.goodRecordsLost).toBe(0);
    expect(report.badLinesUnreported).toBe(0);
    expect(report.problemsWithoutFileOrLine).toBe(0);
    expect(report.goodRecordsChecked).toBeGreaterThan(0);
    expect(report.badLinesChecked).toBeGreaterThan(0);
  }, 300_000);
});
