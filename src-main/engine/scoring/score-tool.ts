/**
 * Tool scorer: empty payloads, error-shaped payloads (a tool that "succeeds"
 * with `{"error": ...}`), a declared `metadata.expected_type` that the output
 * does not have, and the tool's historical failure rate across the database.
 * Exceptions (status "error") are scored for every step type in score-run.
 */
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { makeCheck, NO_CHECKS, type Check } from './check';
import { quoteStep } from '../text/evidence-quote';
import { isEmptyPayload, isObj, jsonTypeOf } from '../text/json-text';
import { lowerCase } from '../text/text-terms';
import type { Settings } from './settings';
import { ownValue } from '../../../src-shared/own-property';

export type ToolStats = Record<string, { calls: number; failures: number }>;

const ERROR_KEYS = ['error', 'errors', 'exception', 'err', 'error_message', 'errorMessage', 'fault'];
const FAILED_STATUS = new Set(['error', 'failed', 'failure', 'fail']);
const ERROR_STRING = /^\s*(?:error\b|exception\b|traceback \(most recent call last\)|fatal\b|http\s*[45]\d\d\b|[45]\d\d (?:bad|not|internal|service|forbidden|unauthorized))/i;
const NOT_FOUND = /\b(?:not found|no such|does not exist|404)\b/i;
/**
 * Error text inside a longer payload: a code runner's non-zero exit status
 * ("exitcode: 1", "exit code 2", "exited with code 127", "returncode=1") or a
 * Python traceback anywhere in the text (code interpreters return stdout and
 * stderr together, so the traceback is rarely at the start).
 */
const NONZERO_EXIT = /\b(?:exit ?code|exit status|return ?code|exited with (?:code|status))\s*[:=]?\s*(-?[1-9]\d*)\b/i;
const TRACEBACK = /^Traceback \(most recent call last\):|^\s*File "[^"]+", line \d+/m;
const TRACEBACK_ERROR_LINE = /^([A-Z][A-Za-z]*(?:Error|Exception|Exit|Interrupt))(?::\s*(.*))?$/m;

/** A non-zero exit status or a traceback in a text payload, with the line to quote. */
function embeddedFailure(text: string): { quote: string; why: string } | null {
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text;
  // Most payloads hold neither: two substring scans decide before any regular expression runs.
  const mayTrace = head.includes('Traceback') || head.includes('File "');
  const mayExit = head.includes('xit') || head.includes('eturn');
  if (!mayTrace && !mayExit) return null;
  const tb = mayTrace ? TRACEBACK.exec(head) : null;
  if (tb) {
    const last = TRACEBACK_ERROR_LINE.exec(head.slice(tb.index));
    return { quote: (last ? last[0] : tb[0]).trim().slice(0, 120), why: 'the payload holds a traceback' };
  }
  const exit = mayExit ? NONZERO_EXIT.exec(head) : null;
  if (exit) return { quote: exit[0], why: `the payload reports a non-zero exit status (${exit[1]})` };
  return null;
}

// Fields that say how a call ended, by kind; module constants, not literals, so that checking every tool
// step of a large run makes no array (nor, with index loops, an iterator result) per step.
const EXIT_KEYS = ['exit_code', 'exitCode', 'returncode', 'return_code'];
const TEXT_KEYS = ['stderr', 'stdout', 'output', 'result'];
const HTTP_KEYS = ['status_code', 'statusCode', 'http_status'];

/** What about this payload says "failure", with the text to quote; null when nothing does. */
export function errorShapeOf(output: Json | null): { hard: boolean; quote: string; why: string } | null {
  if (typeof output === 'string') {
    if (ERROR_STRING.test(output)) return { hard: true, quote: output.trim().split('\n')[0].slice(0, 120), why: 'the payload is an error message' };
    const embedded = embeddedFailure(output);
    if (embedded) return { hard: true, ...embedded };
    if (output.length < 200 && NOT_FOUND.test(output)) return { hard: false, quote: output.match(NOT_FOUND)![0], why: 'the payload says the thing was not found' };
    return null;
  }
  if (!isObj(output)) return null;
  for (let i = 0; i < ERROR_KEYS.length; i++) {
    const k = ERROR_KEYS[i];
    const v = output[k];
    const present = typeof v === 'string' ? v.trim() !== '' : Array.isArray(v) ? v.length > 0 : v === true || isObj(v);
    if (present) {
      const quote = typeof v === 'string' ? v.split('\n')[0].slice(0, 120) : isObj(v) && typeof v.message === 'string' ? v.message.slice(0, 120) : k;
      return { hard: true, quote, why: `the payload carries an "${k}" field` };
    }
  }
  if (output.success === false || output.ok === false) return { hard: true, quote: 'false', why: 'the payload reports success = false' };
  if (typeof output.status === 'string' && FAILED_STATUS.has(lowerCase(output.status))) {
    return { hard: true, quote: output.status, why: `the payload's status is "${output.status}"` };
  }
  for (let i = 0; i < EXIT_KEYS.length; i++) {
    const k = EXIT_KEYS[i];
    const v = output[k];
    if (typeof v === 'number' && v !== 0) return { hard: true, quote: String(v), why: `the payload's ${k} is ${v}` };
  }
  for (let i = 0; i < TEXT_KEYS.length; i++) {
    const v = output[TEXT_KEYS[i]];
    const embedded = typeof v === 'string' ? embeddedFailure(v) : null;
    if (embedded) return { hard: true, ...embedded };
  }
  for (let i = 0; i < HTTP_KEYS.length; i++) {
    const k = HTTP_KEYS[i];
    const v = output[k];
    if (typeof v === 'number' && v >= 400) return { hard: true, quote: String(v), why: `the payload's ${k} is ${v}` };
  }
  if (typeof output.message === 'string' && Object.keys(output).length <= 2 && NOT_FOUND.test(output.message)) {
    return { hard: false, quote: output.message.match(NOT_FOUND)![0], why: 'the payload says the thing was not found' };
  }
  return null;
}

function declaredType(v: Json | undefined): string | null {
  if (typeof v === 'string') return v.toLowerCase();
  if (isObj(v) && typeof v.type === 'string') return v.type.toLowerCase();
  return null;
}

function typeMatches(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  if (expected === 'number' && actual === 'integer') return true;
  if ((expected === 'list' || expected === 'array') && actual === 'array') return true;
  if ((expected === 'str' || expected === 'text') && actual === 'string') return true;
  if ((expected === 'dict' || expected === 'object') && actual === 'object') return true;
  if ((expected === 'int') && actual === 'integer') return true;
  if ((expected === 'float') && (actual === 'number' || actual === 'integer')) return true;
  if ((expected === 'bool') && actual === 'boolean') return true;
  return false;
}

export function toolNameOf(step: Step): string {
  const m = step.metadata?.tool_name ?? step.metadata?.tool;
  return typeof m === 'string' && m !== '' ? m : step.name;
}

export function scoreTool(step: Step, settings: Settings, toolStats: ToolStats): Check[] {
  const t = settings.scoring.tool;
  // Made when the first check is found (NO_CHECKS says why).
  let checks: Check[] | null = null;
  const name = toolNameOf(step);
  const stats = ownValue(toolStats, name);
  if (stats && stats.calls >= t.flaky_min_calls) {
    const rate = stats.failures / stats.calls;
    if (rate >= t.flaky_rate) {
      (checks ??= []).push(
        makeCheck('tool', 'tool.flaky', 1 - rate, `has failed in ${stats.failures} of the ${stats.calls} recorded calls of "${name}" (${(rate * 100).toFixed(0)}%)`, {
          evidence: quoteStep(step, 'output') ?? quoteStep(step, 'input'),
        }),
      );
    }
  }
  if (step.status !== 'ok') return checks ?? NO_CHECKS;

  const shape = errorShapeOf(step.output);
  if (shape) {
    (checks ??= []).push(
      makeCheck('tool', 'tool.error_payload', shape.hard ? t.error_payload_score : t.not_found_score, `returned without raising, but ${shape.why}: "${shape.quote}"`, {
        hard: shape.hard,
        evidence: quoteStep(step, 'output', shape.quote) ?? quoteStep(step, 'output'),
      }),
    );
  }

  const sideEffect = step.metadata?.side_effect === true;
  const empty = isEmptyPayload(step.output);
  if (empty && !sideEffect && step.type === 'tool') {
    (checks ??= []).push(
      makeCheck('tool', 'tool.empty', empty === 'empty' ? t.empty_score : t.empty_list_score, empty === 'empty' ? 'returned an empty payload' : 'returned an empty list', {
        evidence: quoteStep(step, 'input'),
      }),
    );
  }

  const expected = declaredType(step.metadata?.expected_type);
  if (expected !== null && !(empty === 'empty' && sideEffect)) {
    const actual = jsonTypeOf(step.output);
    if (!typeMatches(expected, actual)) {
      (checks ??= []).push(
        makeCheck('tool', 'tool.type_mismatch', t.type_mismatch_score, `was declared to return ${expected} but returned ${actual}`, {
          hard: true,
          evidence: quoteStep(step, 'output') ?? quoteStep(step, 'metadata', expected),
        }),
      );
    }
  }
  return checks ?? NO_CHECKS;
}
