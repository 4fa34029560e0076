/**
 * Writes the blame benchmark's scenario traces (one run per JSONL file,
 * native format) under bench/blame/scenarios/<category>/<id>.jsonl. Each
 * run-start carries tags: expected_blame (a step name or replay key; "" for
 * healthy runs), category and kind; bench_tool_stats stands in for the tool
 * history the database would hold. Run: npx tsx bench/blame/generate-scenarios.ts
 *
 * The traces are committed; this script documents how they were made and
 * regenerates them byte for byte (the clock is fixed).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from './scenario-kit';
import './scenarios-part1';
import './scenarios-part2';
import './scenarios-healthy';

export const SCENARIO_DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

export function writeScenarios(dir = SCENARIO_DIR): number {
  rmSync(dir, { recursive: true, force: true });
  for (const s of SCENARIOS) {
    const file = join(dir, s.category, `${s.id}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, s.build().jsonl());
  }
  return SCENARIOS.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const n = writeScenarios();
  console.log(`wrote ${n} scenarios to ${SCENARIO_DIR}`);
}
