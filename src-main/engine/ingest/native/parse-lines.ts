/**
 * Parsing and validation of native trace lines. Hand-written checks rather
 * than a schema library: this runs once per line on the import hot path.
 */
import {
  RECORD_TYPES,
  STEP_TYPES,
  TRACE_FORMAT_MAJOR,
  type RecordType,
  type StepType,
  type TraceRecord,
} from '../../../../src-shared/trace-format';
import { usableTimeMs } from '../../../../src-shared/usable-time';

export interface LineProblem {
  line: number;
  message: string;
  level: 'error' | 'warning';
}

export type ParsedLine =
  | { kind: 'record'; record: TraceRecord; warnings: LineProblem[] }
  | { kind: 'skip'; problem: LineProblem }
  | { kind: 'error'; problem: LineProblem }
  /** A run-start whose major version this build cannot read: the file is refused. */
  | { kind: 'refuse'; problem: LineProblem };

const recordTypes = new Set<string>(RECORD_TYPES);
// Nearly every line has no warning: share one empty list instead of allocating one per line.
const NO_WARNINGS: LineProblem[] = Object.freeze([]) as unknown as LineProblem[];
const stepTypes = new Set<string>(STEP_TYPES);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Checks one field; returns a message when it is wrong. */
type Check = (rec: Record<string, unknown>) => string | null;

const str = (key: string): Check => (r) =>
  typeof r[key] === 'string' && (r[key] as string).length > 0 ? null : `"${key}" must be a non-empty string`;
const optStr = (key: string): Check => (r) =>
  r[key] === undefined || r[key] === null || typeof r[key] === 'string' ? null : `"${key}" must be a string`;
const num = (key: string): Check => (r) =>
  typeof r[key] === 'number' && Number.isFinite(r[key]) ? null : `"${key}" must be a number`;
// A time a Date cannot hold (1e300) would be stored and then break every list that prints it: refused like a missing one.
const time = (key: string): Check => (r) =>
  typeof r[key] !== 'number' || !Number.isFinite(r[key])
    ? `"${key}" must be a number`
    : usableTimeMs(r[key]) === null
      ? `"${key}" ${clip(String(r[key]), 24)} is not a usable time (ms since 1970, at most ±8.64e15)`
      : null;
const optObj = (key: string): Check => (r) =>
  r[key] === undefined || r[key] === null || isObject(r[key]) ? null : `"${key}" must be an object`;
const oneOf = (key: string, values: readonly string[]): Check => (r) =>
  values.includes(r[key] as string) ? null : `"${key}" must be one of ${values.join(', ')}`;

const checks: Record<RecordType, Check[]> = {
  'run-start': [str('run_id'), str('v'), str('pipeline'), time('ts'), optObj('sdk'), optObj('entry'), optObj('tags'), optObj('provenance')],
  'step-start': [str('run_id'), str('step_id'), optStr('parent_id'), str('name'), time('ts'), optObj('metadata')],
  'step-end': [str('run_id'), str('step_id'), time('ts'), oneOf('status', ['ok', 'error']), optObj('error'), optObj('usage'), optObj('metadata')],
  score: [str('run_id'), str('name'), num('value'), optStr('step_id')],
  verdict: [str('run_id'), (r) => (typeof r.pass === 'boolean' ? null : '"pass" must be true or false')],
  'run-end': [str('run_id'), time('ts'), oneOf('status', ['ok', 'error']), optObj('error')],
};

function nonEmpty(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}
function optionalString(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}
function optionalObject(v: unknown): boolean {
  return v === undefined || v === null || isObject(v);
}

/** checks['step-start'] all pass. */
function stepStartValid(r: Record<string, unknown>): boolean {
  return nonEmpty(r.run_id) && nonEmpty(r.step_id) && optionalString(r.parent_id) && nonEmpty(r.name) && usableTimeMs(r.ts) !== null && optionalObject(r.metadata);
}

/** checks['step-end'] all pass. */
function stepEndValid(r: Record<string, unknown>): boolean {
  return (
    nonEmpty(r.run_id) &&
    nonEmpty(r.step_id) &&
    usableTimeMs(r.ts) !== null &&
    (r.status === 'ok' || r.status === 'error') &&
    optionalObject(r.error) &&
    optionalObject(r.usage) &&
    optionalObject(r.metadata)
  );
}

/** Parses and validates one line (without its newline). `line` is 1-based. */
export function parseTraceLine(text: string, line: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'error', problem: { line, level: 'error', message: `invalid JSON (${(err as Error).message}): ${clip(text)}` } };
  }
  return parseTraceValue(value, line);
}

/** Validates the value of one line, parsed (by JSON.parse, or piecewise for a line too long to hold: native/huge-line.ts). */
export function parseTraceValue(value: unknown, line: number): ParsedLine {
  if (!isObject(value)) return { kind: 'error', problem: { line, level: 'error', message: 'a trace record must be a JSON object' } };
  const type = value.type;
  if (typeof type !== 'string') return { kind: 'error', problem: { line, level: 'error', message: 'record has no "type"' } };
  if (!recordTypes.has(type)) {
    return { kind: 'skip', problem: { line, level: 'warning', message: `unknown record type "${clip(type, 40)}" skipped` } };
  }
  // Step records are nearly every line: their fields are read directly first, and the check list (which
  // words the message) runs only when that finds a problem. The conditions are those of `checks`, field for field.
  const fast = type === 'step-start' ? stepStartValid(value) : type === 'step-end' ? stepEndValid(value) : false;
  if (!fast) {
    for (const check of checks[type as RecordType]) {
      const msg = check(value);
      if (msg) return { kind: 'error', problem: { line, level: 'error', message: `${type} record: ${msg}` } };
    }
  }
  // No closure here: under tsx (the CLI, the bench) every function created per call is also renamed per call.
  let warnings: LineProblem[] = NO_WARNINGS;
  if (type === 'run-start') {
    const major = Number(String(value.v).split('.')[0]);
    if (major !== TRACE_FORMAT_MAJOR) {
      return {
        kind: 'refuse',
        problem: {
          line,
          level: 'error',
          message: `trace format version ${clip(String(value.v), 20)} is not supported (this Traceback reads ${TRACE_FORMAT_MAJOR}.x); the file was not imported — update Traceback`,
        },
      };
    }
  }
  if (type === 'step-start') {
    if (!stepTypes.has(value.step_type as string)) {
      warnings = [{ line, level: 'warning', message: `unknown step type "${clip(String(value.step_type), 40)}" read as "generic"` }];
      value.step_type = 'generic' satisfies StepType;
    }
    if (typeof value.index !== 'number' || !Number.isInteger(value.index) || value.index < 0) {
      return { kind: 'error', problem: { line, level: 'error', message: 'step-start record: "index" must be a whole number ≥ 0' } };
    }
    if (typeof value.replay_key !== 'string' || value.replay_key.length === 0) {
      value.replay_key = `${value.name}#${value.index}`;
      const w: LineProblem = { line, level: 'warning', message: 'step-start record has no "replay_key"; derived one from name and index' };
      if (warnings === NO_WARNINGS) warnings = [w];
      else warnings.push(w);
    }
    if (value.parent_id === undefined) value.parent_id = null;
  }
  // Scores and verdicts may leave out "ts" (the store then uses the time of import): one no date can hold counts as left out.
  if ((type === 'score' || type === 'verdict') && value.ts !== undefined && value.ts !== null && usableTimeMs(value.ts) === null) {
    warnings = [{ line, level: 'warning', message: `${type} record: "ts" ${clip(String(value.ts), 24)} is not a usable time; read as missing` }];
    delete value.ts;
  }
  return { kind: 'record', record: value as unknown as TraceRecord, warnings };
}

/** Parses a whole text (e.g. a fixture); a last line without newline counts as complete. */
export function parseTraceText(text: string): { records: TraceRecord[]; errors: LineProblem[] } {
  const records: TraceRecord[] = [];
  const errors: LineProblem[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const parsed = parseTraceLine(raw, i + 1);
    if (parsed.kind === 'record') {
      records.push(parsed.record);
      errors.push(...parsed.warnings);
    } else {
      errors.push(parsed.problem);
      if (parsed.kind === 'refuse') break;
    }
  }
  return { records, errors };
}
