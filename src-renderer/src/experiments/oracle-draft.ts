/**
 * The oracle fields of the fork editor and the OracleSpec they make. The
 * engine checks patterns and paths again before the first trial
 * (judge-trial.ts); checking here lets Start stay disabled with a reason.
 */
import type { OracleSpec } from '../../../src-shared/experiments';
import type { Json } from '../../../src-shared/trace-format';

export type OracleKind = OracleSpec['kind'];

export const ORACLE_CHOICES: { kind: OracleKind; label: string; hint: string }[] = [
  { kind: 'verdict', label: "The pipeline's own verdict", hint: 'pass when the forked run records a passing verdict through the SDK; no verdict counts as a fail' },
  { kind: 'equals', label: 'Output equals', hint: 'the final output equals this value (JSON if it parses, else text; key order does not matter)' },
  { kind: 'contains', label: 'Output contains', hint: "the final output's text (JSON for non-strings) contains this text" },
  { kind: 'regex', label: 'Output matches regex', hint: "the final output's text matches this regular expression" },
  { kind: 'json-path', label: 'JSON path equals', hint: 'the value at a path of the final output (a.b[0].c) equals this value' },
  { kind: 'command', label: 'Command (runs on this machine)', hint: 'a shell command you type, given the final output as JSON on stdin; exit 0 = pass' },
];

export interface OracleDraft {
  kind: OracleKind;
  value: string;
  text: string;
  pattern: string;
  flags: string;
  path: string;
  command: string;
}

export const EMPTY_ORACLE_DRAFT: OracleDraft = { kind: 'verdict', value: '', text: '', pattern: '', flags: '', path: '', command: '' };

/** As the CLI reads --expect-equals: JSON when it parses, otherwise the text itself. */
export function jsonOrText(raw: string): Json {
  try {
    return JSON.parse(raw) as Json;
  } catch {
    return raw;
  }
}

export function buildOracle(d: OracleDraft): { ok: true; oracle: OracleSpec } | { ok: false; message: string } {
  switch (d.kind) {
    case 'verdict':
      return { ok: true, oracle: { kind: 'verdict' } };
    case 'equals':
      if (d.value.trim() === '') return { ok: false, message: 'Type the expected output.' };
      return { ok: true, oracle: { kind: 'equals', value: jsonOrText(d.value) } };
    case 'contains':
      if (d.text === '') return { ok: false, message: 'Type the text the output must contain.' };
      return { ok: true, oracle: { kind: 'contains', text: d.text } };
    case 'regex': {
      if (d.pattern === '') return { ok: false, message: 'Type a regular expression.' };
      if (!/^[imsu]*$/.test(d.flags)) return { ok: false, message: 'Flags may only be i, m, s and u.' };
      try {
        new RegExp(d.pattern, d.flags);
      } catch (error) {
        return { ok: false, message: `Invalid regular expression: ${(error as Error).message}` };
      }
      return { ok: true, oracle: d.flags ? { kind: 'regex', pattern: d.pattern, flags: d.flags } : { kind: 'regex', pattern: d.pattern } };
    }
    case 'json-path':
      if (d.path.trim() === '') return { ok: false, message: 'Type a path such as answer.cities[0].' };
      if (d.value.trim() === '') return { ok: false, message: 'Type the value expected at that path.' };
      return { ok: true, oracle: { kind: 'json-path', path: d.path.trim(), value: jsonOrText(d.value) } };
    case 'command':
      if (d.command.trim() === '') return { ok: false, message: 'Type the command that judges a trial.' };
      return { ok: true, oracle: { kind: 'command', command: d.command } };
  }
}

/** One line describing how trials are judged, for the scoreboard. */
export function describeOracle(o: OracleSpec): string {
  switch (o.kind) {
    case 'verdict':
      return "the pipeline's own verdict";
    case 'equals':
      return `output equals ${JSON.stringify(o.value)}`;
    case 'contains':
      return `output contains ${JSON.stringify(o.text)}`;
    case 'regex':
      return `output matches /${o.pattern}/${o.flags ?? ''}`;
    case 'json-path':
      return `${o.path} equals ${JSON.stringify(o.value)}`;
    case 'command':
      return `command: ${o.command}`;
  }
}
