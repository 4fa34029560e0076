/**
 * Test helper: reads a committed foreign fixture and imports it the way the
 * importer does (detect → parse → fold), returning the runs and the issues.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunDetail, Step } from '../../src-shared/model';
import { foldRecords } from '../../src-main/engine/ingest/native/fold-records';
import { detectForeignFormat, parseForeignFile, type ForeignIssue } from '../../src-main/engine/ingest/foreign/index';

const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/foreign/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(FIXTURE_DIR + name, 'utf8');
}

export function importText(text: string, fileName: string): { runs: RunDetail[]; issues: ForeignIssue[] } {
  const format = detectForeignFormat(text.slice(0, 64 * 1024), fileName);
  if (!format) throw new Error(`${fileName}: format not detected`);
  const { records, errors } = parseForeignFile(text, format, fileName);
  return { runs: foldRecords(records, { final: true }), issues: errors };
}

export function importFixture(name: string): { runs: RunDetail[]; issues: ForeignIssue[] } {
  return importText(fixtureText(name), name);
}

export function stepNamed(run: RunDetail, name: string, occurrence = 0): Step {
  const found = run.steps.filter((s) => s.name === name)[occurrence];
  if (!found) throw new Error(`no step "${name}"#${occurrence} in run ${run.run.run_id}`);
  return found;
}

export function parentOf(run: RunDetail, step: Step): Step | null {
  return run.steps.find((s) => s.step_id === step.parent_id) ?? null;
}

export function runWithStep(runs: RunDetail[], name: string): RunDetail {
  const run = runs.find((r) => r.steps.some((s) => s.name === name));
  if (!run) throw new Error(`no run with a step "${name}"`);
  return run;
}
