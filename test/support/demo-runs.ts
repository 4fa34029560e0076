/** Test helpers for the demo pipelines: read a run back through the real importer's parser and fold. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunDetail } from '../../src-shared/model';
import { foldRecords } from '../../src-main/engine/ingest/native/fold-records';
import { parseTraceText } from '../../src-main/engine/ingest/native/parse-lines';

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'tb-demo-'));
}

/** The run as the engine will see it; throws if the importer reports any problem with the file. */
export function importedRun(home: string, runId: string): RunDetail {
  const { records, errors } = parseTraceText(readFileSync(join(home, 'inbox', `${runId}.jsonl`), 'utf8'));
  if (errors.length) throw new Error(`importer problems in ${runId}: ${JSON.stringify(errors)}`);
  const [detail] = foldRecords(records, { final: true });
  return detail;
}

export function stepOf(detail: RunDetail, key: string) {
  const s = detail.steps.find((x) => x.replay_key === key);
  if (!s) throw new Error(`no step ${key} in ${detail.steps.map((x) => x.replay_key).join(', ')}`);
  return s;
}
