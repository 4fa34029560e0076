// A key named "__proto__" in a trace is data like any other key. Copied by assignment it replaced the copy's
// prototype: the key vanished from what was stored, and its value's keys were read as if they were the copy's own.
// Each case below is JSON text (an object literal with that key would set the test's own prototype).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../src-shared/model';
import { openDatabase, type Db } from '../store/open-database';
import { getRunDetail } from '../store/read-runs';
import { importFile } from './import-file';
import { foldRecords } from './native/fold-records';
import { parseTraceText } from './native/parse-lines';
import { importText } from '../../../test/support/foreign-fixtures';
import { MAX_DEPTH, storedJson } from '../store/field-limits';
import { outgoingRedactor } from '../explain/redact-outgoing';
import type { Json } from '../../../src-shared/trace-format';
import { trialEnv } from '../experiments/trial-environment';

const hasOwn = (v: unknown, key: string) => typeof v === 'object' && v !== null && Object.hasOwn(v, key);

let dir: string;
let db: Db;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-proto-'));
  db = openDatabase(path.join(dir, 'tb.db'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function imported(name: string, text: string, hugeLineBytes?: number): RunDetail[] {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  const r = importFile(db, file, { final: true, hugeLineBytes });
  expect(r.newErrors.filter((e) => e.level === 'error')).toEqual([]);
  return r.runs.map((id) => getRunDetail(db, id));
}

// A chat span whose "__proto__" attribute holds attributes that would retype it as a tool and rename its system.
const OTLP = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}},
{"key":"__proto__","value":{"kvlistValue":{"values":[{"key":"service.name","value":{"stringValue":"spoofed"}}]}}}]},
"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331",
"name":"chat m1","kind":3,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000","status":{},
"attributes":[{"key":"__proto__","value":{"kvlistValue":{"values":[{"key":"openinference.span.kind","value":{"stringValue":"TOOL"}},
{"key":"gen_ai.system","value":{"stringValue":"spoofed"}}]}}},
{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"m1"}},
{"key":"traceback.metadata","value":{"stringValue":"{\\"__proto__\\":{\\"k\\":1},\\"team\\":\\"a\\"}"}}]}]}]}]}`;

describe('a key named __proto__ in a trace', () => {
  it('in OTLP attributes is kept as an attribute and retypes nothing (streamed and whole imports alike)', () => {
    const whole = importText(OTLP, 'proto.json').runs;
    for (const run of [imported('proto.json', OTLP)[0], whole[0]]) {
      expect(run.run.pipeline).toBe('svc');
      const step = run.steps[0];
      expect(step.type).toBe('llm');
      const attrs = step.metadata.attributes as Record<string, unknown>;
      expect(hasOwn(attrs, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
      expect(JSON.stringify(attrs)).toContain('"__proto__":{"openinference.span.kind":"TOOL","gen_ai.system":"spoofed"}');
    }
  });

  it('in native metadata and as an unknown record field is stored, merged across start and end, as the fold has it', () => {
    const text = [
      '{"type":"run-start","v":"1.0","run_id":"r","pipeline":"p","ts":1}',
      '{"type":"step-start","run_id":"r","step_id":"a","parent_id":null,"index":0,"name":"plan","step_type":"llm","replay_key":"plan#0","ts":2,"metadata":{"__proto__":{"x":1}},"__proto__":{"extra":true}}',
      '{"type":"step-end","run_id":"r","step_id":"a","ts":3,"status":"ok","output":"ok","metadata":{"__proto__":{"y":2},"other":1}}',
      '{"type":"run-end","run_id":"r","ts":4,"status":"ok","output":"ok"}',
    ].join('\n');
    const stored = imported('r.jsonl', `${text}\n`)[0];
    // The step-start made longer than two reads (1 MB each): read member by member, as a line too long to hold is (native/huge-line.ts).
    const long = text.replaceAll('"run_id":"r"', '"run_id":"r2"').replace('"ts":2,', `"ts":2,"input":"${'x'.repeat(2_500_000)}",`);
    const readInParts = imported('r2.jsonl', `${long}\n`, 100)[0];
    expect(readInParts.steps[0].input).toMatchObject({ $truncated: true, original_chars: 2_500_002 });
    const folded = foldRecords(parseTraceText(text).records, { final: true })[0];
    for (const step of [stored.steps[0], readInParts.steps[0], folded.steps[0]]) {
      expect(JSON.stringify(step.metadata)).toBe('{"__proto__":{"x":1,"y":2},"other":1}');
      expect(JSON.stringify(step.extra)).toContain('"__proto__":{"extra":true}');
    }
  });

  it('in a LangChain run and its metadata is kept', () => {
    const run = `[{"id":"01a229e2-e8ca-7308-8f59-1aa8af843e23","name":"agent","run_type":"chain","start_time":1795999066315,"end_time":1795999066641,
"inputs":{"q":"x"},"outputs":{"a":"y"},"extra":{"metadata":{"__proto__":{"run_type":"llm"},"team":"a"}},"__proto__":{"run_type":"tool"},"child_runs":[]}]`;
    const step = imported('lc.json', run)[0].steps[0];
    expect(step.type).not.toBe('llm');
    expect(hasOwn(step.metadata, '__proto__')).toBe(true);
    expect(hasOwn(step.metadata.attributes, '__proto__')).toBe(true);
    expect(step.metadata.team).toBe('a');
  });

  it('in a value cut for depth, and in what the explain agent sends, is kept (and redacted inside like any key)', () => {
    const deep = `{"__proto__":{"a":1},"deep":${'['.repeat(MAX_DEPTH + 800)}${']'.repeat(MAX_DEPTH + 800)}}`;
    const stored = storedJson(JSON.parse(deep));
    expect(stored.depthDropped).toBe(1);
    expect(stored.text!.startsWith('{"__proto__":{"a":1},"deep":')).toBe(true);
    const sent = outgoingRedactor([], []).json(JSON.parse('{"__proto__":{"api_key":"sk-live-123456789012345678901234","q":"where"}}') as Json);
    expect(JSON.stringify(sent)).toBe('{"__proto__":{"api_key":"[REDACTED]","q":"where"}}');
  });

  it('as an environment variable name of a recorded entry is passed to the trial as shown', () => {
    const env = trialEnv({ entry: { command: ['node', 'a.js'], cwd: '/w', env: JSON.parse('{"__proto__":"x","MODE":"y"}') }, planFile: '', tmpDir: '', extraNames: ['constructor'] }, { PATH: '/bin' });
    expect(Object.hasOwn(env, '__proto__') && env.__proto__).toBe('x');
    expect(env.MODE).toBe('y');
    // A name the parent environment does not have is not taken from what every object inherits.
    expect(Object.hasOwn(env, 'constructor')).toBe(false);
  });
});

// Values a trace holds that name what every object inherits: a lookup table must not answer them.
describe('a trace value named like an inherited member ("constructor", "toString")', () => {
  it('as an OTLP operation or Traceloop kind types nothing: the span is stored, not skipped', () => {
    const doc = OTLP.replace('{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}', '{"key":"gen_ai.operation.name","value":{"stringValue":"constructor"}},{"key":"traceloop.span.kind","value":{"stringValue":"toString"}}');
    for (const run of [imported('ctor.json', doc)[0], importText(doc, 'ctor.json').runs[0]]) {
      expect(run.steps).toHaveLength(1);
      expect(run.steps[0].name).toBe('chat m1');
      // Neither table answers: the model attribute types it, as for any span without a known kind.
      expect(run.steps[0].type).toBe('llm');
    }
  });

  it('as a LangChain run_type or message class is no type and no chat role', () => {
    const run = `[{"id":"01a229e2-e8ca-7308-8f59-1aa8af843e24","name":"agent","run_type":"toString","start_time":1795999066315,"end_time":1795999066641,
"inputs":{"messages":[{"lc":1,"type":"constructor","id":["langchain_core","messages","constructor"],"kwargs":{"content":"hi","extra_field":1}}]},"outputs":{"a":"y"},"child_runs":[]}]`;
    const step = imported('lc-ctor.json', run)[0].steps[0];
    expect(step.type).toBe('generic');
    expect(JSON.stringify(step.input)).toContain('extra_field');
  });
});
