/**
 * Loads the held-out blame corpus (bench/blame/heldout) through the real
 * foreign-format importers, in memory: detect → parse → fold, exactly as
 * `tb import` does for a foreign file. See README.md in this folder.
 *
 * Never use this corpus to tune blame rules or constants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunDetail, Step } from '../../../src-shared/model';
import { foldRecords } from '../../../src-main/engine/ingest/native/fold-records';
import { detectForeignFormat, parseForeignFile } from '../../../src-main/engine/ingest/foreign/index';

export const HELDOUT_DIR = fileURLToPath(new URL('.', import.meta.url));

export interface HeldoutLabel {
  class: string;
  culprit: string;
  culprit_occurrence?: number;
  alternates: string[];
  expected?: string;
  note: string;
}

export interface HeldoutCase {
  file: string;
  cls: string;
  culprit: string;
  culpritOccurrence?: number;
  alternates: string[];
  expected?: string;
  detail: RunDetail;
}

export function heldoutLabels(): Record<string, HeldoutLabel> {
  return JSON.parse(readFileSync(join(HELDOUT_DIR, 'labels.json'), 'utf8')) as Record<string, HeldoutLabel>;
}

/** Imports one corpus file; throws naming the file unless it gives exactly one run and no import errors. */
export function importHeldoutFile(file: string): RunDetail {
  const text = readFileSync(join(HELDOUT_DIR, file), 'utf8');
  const format = detectForeignFormat(text.slice(0, 64 * 1024), file);
  if (!format) throw new Error(`${file}: format not detected`);
  const { records, errors } = parseForeignFile(text, format, file);
  const fatal = errors.filter((e) => e.level === 'error');
  if (fatal.length) throw new Error(`${file}: import errors: ${fatal.map((e) => `line ${e.line}: ${e.message}`).join('; ')}`);
  const runs = foldRecords(records, { final: true });
  if (runs.length !== 1) throw new Error(`${file}: expected exactly one run, got ${runs.length}`);
  return runs[0];
}

/**
 * Whether a step is the one a label names. Labels use the step name the
 * importer gives today; for GenAI `execute_tool` spans that is the span name
 * ("execute_tool run_python"). docs/formats.md says tool steps take
 * `gen_ai.tool.name` and keep the span name in `metadata.span_name`, so both
 * are accepted.
 */
export function stepMatches(step: Step, name: string): boolean {
  return step.name === name || step.metadata?.span_name === name;
}

/** The labelled step: the `occurrence`-th step (in start order) that matches `name`, or undefined. */
export function findLabelledStep(detail: RunDetail, name: string, occurrence = 0): Step | undefined {
  return detail.steps.filter((s) => stepMatches(s, name))[occurrence];
}

export function loadHeldout(): HeldoutCase[] {
  const labels = heldoutLabels();
  const files = readdirSync(HELDOUT_DIR).filter((f) => f.endsWith('.json') && f !== 'labels.json');
  for (const f of files) if (!labels[f]) throw new Error(`${f}: no entry in labels.json`);
  return Object.entries(labels).map(([file, label]) => {
    const detail = importHeldoutFile(file);
    return {
      file,
      cls: label.class,
      culprit: label.culprit,
      ...(label.culprit_occurrence !== undefined ? { culpritOccurrence: label.culprit_occurrence } : {}),
      alternates: label.alternates ?? [],
      ...(label.expected !== undefined ? { expected: label.expected } : {}),
      detail,
    };
  });
}
