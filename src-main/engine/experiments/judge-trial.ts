/**
 * Oracles: how a finished trial is judged pass or fail. The default is the
 * verdict the pipeline itself recorded through the SDK; the others look only
 * at the run's final output, so they work for pipelines that record none.
 * The oracle command is the user's own (typed on the command line or in the
 * UI), never one read from a trace.
 */
import { spawn } from 'node:child_process';
import type { Run } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import type { OracleSpec } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';
import { killTree } from './run-process';
import { canonicalJsonValue, sameJson } from './validate-edit';

export interface Judgement {
  pass: boolean;
  detail: string;
}

const ORACLE_COMMAND_TIMEOUT_MS = 60_000;

export async function judgeRun(run: Run, oracle: OracleSpec, opts: { cwd?: string } = {}): Promise<Judgement> {
  const output = run.output;
  switch (oracle.kind) {
    case 'verdict':
      if (!run.verdict) return { pass: false, detail: 'the pipeline recorded no verdict' };
      return { pass: run.verdict.pass, detail: `verdict ${run.verdict.pass ? 'pass' : 'fail'}${run.verdict.detail ? `: ${clip(run.verdict.detail)}` : ''}` };
    case 'equals':
      return sameJson(output, oracle.value)
        ? { pass: true, detail: 'the output equals the expected value' }
        : { pass: false, detail: `the output ${clip(outputText(output))} is not ${clip(JSON.stringify(oracle.value))}` };
    case 'contains':
      return outputText(output).includes(oracle.text)
        ? { pass: true, detail: `the output contains ${clip(JSON.stringify(oracle.text))}` }
        : { pass: false, detail: `the output does not contain ${clip(JSON.stringify(oracle.text))}` };
    case 'regex': {
      const re = compileRegex(oracle.pattern, oracle.flags);
      return re.test(outputText(output))
        ? { pass: true, detail: `the output matches /${clip(oracle.pattern)}/` }
        : { pass: false, detail: `the output does not match /${clip(oracle.pattern)}/` };
    }
    case 'json-path': {
      const found = valueAtPath(output, parseJsonPath(oracle.path));
      if (!found.found) return { pass: false, detail: `the output has nothing at ${oracle.path}` };
      return sameJson(found.value, oracle.value)
        ? { pass: true, detail: `${oracle.path} equals ${clip(JSON.stringify(oracle.value))}` }
        : { pass: false, detail: `${oracle.path} is ${clip(JSON.stringify(found.value))}, not ${clip(JSON.stringify(oracle.value))}` };
    }
    case 'command':
      return runOracleCommand(oracle.command, output, opts.cwd);
  }
}

/** Checks an oracle before any trial runs, so a typo fails the request and not every trial. */
export function validateOracle(oracle: OracleSpec): OracleSpec {
  switch (oracle.kind) {
    case 'regex':
      compileRegex(oracle.pattern, oracle.flags);
      return oracle;
    case 'json-path':
      parseJsonPath(oracle.path);
      return { ...oracle, value: canonicalJsonValue(oracle.value, 'the expected value') };
    case 'equals':
      return { ...oracle, value: canonicalJsonValue(oracle.value, 'the expected value') };
    case 'command':
      if (!oracle.command.trim()) throw new EngineError('bad_request', 'the oracle command is empty');
      return oracle;
    case 'contains':
      if (!oracle.text) throw new EngineError('bad_request', 'the expected text is empty');
      return oracle;
    case 'verdict':
      return oracle;
    default:
      throw new EngineError('bad_request', `unknown oracle kind ${JSON.stringify((oracle as { kind: unknown }).kind)}`);
  }
}

/** A string output as is; anything else as its JSON text. */
function outputText(output: Json | null): string {
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

function compileRegex(pattern: string, flags = ''): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (err) {
    throw new EngineError('bad_request', `the expected-output pattern is not a valid regular expression: ${(err as Error).message}`);
  }
}

type PathSegment = string | number;

/** `$.a.b[0]["odd key"]`, `a.b[0]` or `a.b.0`. */
export function parseJsonPath(path: string): PathSegment[] {
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  const segments: PathSegment[] = [];
  const re = /^(?:\.?([A-Za-z_$][\w$-]*)|\.(\d+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\['((?:[^'\\]|\\.)*)'\])/;
  while (rest.length) {
    const m = re.exec(rest);
    if (!m || m[0] === '') throw new EngineError('bad_request', `cannot read the JSON path "${path}" at "${rest}" (use a.b[0].c or $.a["odd key"])`);
    if (m[1] !== undefined) segments.push(m[1]);
    else if (m[2] !== undefined) segments.push(Number(m[2]));
    else if (m[3] !== undefined) segments.push(Number(m[3]));
    else if (m[4] !== undefined) segments.push(JSON.parse(m[4]) as string);
    else segments.push(m[5].replace(/\\(.)/g, '$1'));
    rest = rest.slice(m[0].length);
  }
  return segments;
}

function valueAtPath(root: Json | null, path: PathSegment[]): { found: true; value: Json } | { found: false } {
  let cur: Json | null = root;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === 'number' && seg < cur.length) cur = cur[seg];
    else if (cur && typeof cur === 'object' && !Array.isArray(cur) && Object.prototype.hasOwnProperty.call(cur, String(seg))) cur = cur[String(seg)];
    else return { found: false };
  }
  return { found: true, value: cur as Json };
}

function runOracleCommand(command: string, output: Json | null, cwd?: string): Promise<Judgement> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    let said = '';
    const keep = (b: Buffer) => {
      said = (said + b.toString('utf8')).slice(-2000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      killTree(child);
      finish({ pass: false, detail: `the oracle command did not finish within ${ORACLE_COMMAND_TIMEOUT_MS / 1000} s` });
    }, ORACLE_COMMAND_TIMEOUT_MS);
    let done = false;
    const finish = (j: Judgement) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(j);
    };
    child.on('error', (err) => finish({ pass: false, detail: `the oracle command could not start: ${err.message}` }));
    child.on('close', (code, signal) => {
      const last = said.trim().split('\n').at(-1) ?? '';
      const tail = last ? `: ${clip(last)}` : '';
      finish(code === 0 ? { pass: true, detail: `the oracle command exited 0${tail}` } : { pass: false, detail: `the oracle command exited ${code ?? signal}${tail}` });
    });
    // A command that does not read stdin closes it early; that is its business, not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(output ?? null));
  });
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
