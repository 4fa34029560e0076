import { describe, expect, it } from 'vitest';
import { fixtureText, importFixture, importText } from '../../../../test/support/foreign-fixtures';
import { detectForeignFormat, parseForeignFile, SUPPORTED_FORMATS_DESCRIPTION } from '../foreign/index';

const OPENINFERENCE = 'otlp-openinference-langgraph.json';

type Span = Record<string, unknown> & { attributes: { key: string; value: Record<string, unknown> }[] };
type Doc = { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };

function spansOf(doc: Doc): Span[] {
  return doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('OTLP files as other clients write them', () => {
  const reference = importFixture(OPENINFERENCE).runs;
  const shape = (runs: typeof reference) =>
    runs.map((r) => r.steps.map((s) => ({ name: s.name, type: s.type, parent: s.parent_id, key: s.replay_key, usage: s.usage, status: s.status, error: s.error, input: s.input, output: s.output })));

  it('reads base64 ids, int64 values written as strings and enum names exactly like the hex original', () => {
    const doc = JSON.parse(fixtureText(OPENINFERENCE)) as Doc;
    for (const span of spansOf(doc)) {
      span.traceId = hexToBase64(span.traceId as string);
      span.spanId = hexToBase64(span.spanId as string);
      if (span.parentSpanId) span.parentSpanId = hexToBase64(span.parentSpanId as string);
      span.kind = 'SPAN_KIND_INTERNAL';
      const status = span.status as { code: number };
      span.status = { ...status, code: ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'][status.code] };
      for (const a of span.attributes) if (typeof a.value.intValue === 'number') a.value = { intValue: String(a.value.intValue) };
    }
    const { runs, issues } = importText(JSON.stringify(doc), 'base64.json');
    expect(issues).toEqual([]);
    expect(shape(runs)).toEqual(shape(reference));
    const llm = runs[0].steps.find((s) => s.name === 'ChatOpenAI')!;
    expect(llm.usage).toEqual({ input_tokens: 38, output_tokens: 12, total_tokens: 50 });
    expect(runs.map((r) => r.run.status)).toEqual(['ok', 'error']);
  });

  it('puts a parent before its children when they start in the same microsecond or the child starts first', () => {
    const doc = JSON.parse(fixtureText(OPENINFERENCE)) as Doc;
    const spans = spansOf(doc);
    const graph = spans.find((s) => s.name === 'support_agent')!;
    const start = spans.find((s) => s.name === '__start__')!;
    start.startTimeUnixNano = graph.startTimeUnixNano;
    const retrieve = spans.find((s) => s.name === 'retrieve')!;
    const retriever = spans.find((s) => s.name === 'KnowledgeBaseRetriever')!;
    retriever.startTimeUnixNano = (BigInt(retrieve.startTimeUnixNano as string) - 2_000_000n).toString();
    const run = importText(JSON.stringify(doc), 'skew.json').runs[0];
    const index = (name: string) => run.steps.find((s) => s.name === name)!.index;
    expect(index('support_agent')).toBeLessThan(index('__start__'));
    expect(index('retrieve')).toBeLessThan(index('KnowledgeBaseRetriever'));
    expect(index('KnowledgeBaseRetriever')).toBe(index('retrieve') + 1);
  });

  it('keeps a child that ended after its parent under that parent', () => {
    const doc = JSON.parse(fixtureText(OPENINFERENCE)) as Doc;
    const spans = spansOf(doc);
    const tools = spans.find((s) => s.name === 'tools')!;
    const tool = spans.find((s) => s.name === 'lookup_order')!;
    tool.endTimeUnixNano = (BigInt(tools.endTimeUnixNano as string) + 3_000_000n).toString();
    const run = importText(JSON.stringify(doc), 'late.json').runs[0];
    const step = run.steps.find((s) => s.name === 'lookup_order')!;
    expect(run.steps.find((s) => s.step_id === step.parent_id)!.name).toBe('tools');
    expect(step.ended_at).toBeGreaterThan(run.steps.find((s) => s.name === 'tools')!.ended_at!);
  });

  it('reports malformed spans by their path and line and keeps the rest of the trace', () => {
    const doc = JSON.parse(fixtureText(OPENINFERENCE)) as Doc;
    const spans = doc.resourceSpans[0].scopeSpans[0].spans;
    const lookup = spans.findIndex((s) => s.name === 'lookup_order');
    spans[lookup].traceId = 'not-an-id';
    const prompt = spans.findIndex((s) => s.name === 'ChatPromptTemplate');
    delete spans[prompt].startTimeUnixNano;
    const text = JSON.stringify(doc, null, 1);
    const { runs, issues } = importText(text, 'damaged.json');
    const errors = issues.filter((i) => i.level === 'error');
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining(`resourceSpans[0].scopeSpans[0].spans[${lookup}]: traceId "not-an-id" is missing or not a valid id`),
      expect.stringContaining(`resourceSpans[0].scopeSpans[0].spans[${prompt}]: no startTimeUnixNano`),
    ]);
    const lines = text.split('\n');
    // Each is named at the line its span starts on: the first id on the lines that follow is the span's own.
    for (const [e, at] of [[errors[0], lookup], [errors[1], prompt]] as const) {
      expect(lines[e.line - 1].trim()).toBe('{');
      const own = lines.slice(e.line).findIndex((l) => l.includes('"spanId"'));
      expect(lines[e.line + own]).toContain(`"spanId": "${spans[at].spanId}"`);
    }
    expect(runs[0].steps).toHaveLength(reference[0].steps.length - 1);
    expect(runs[1].steps.map((s) => s.name)).toEqual(['summarize_conversation', 'ChatOpenAI']);
  });

  it('reports a broken JSON line of a JSON Lines file and imports the other lines', () => {
    const lines = fixtureText('otlp-traceloop-langgraph.jsonl').trim().split('\n');
    lines[1] = lines[1].slice(0, 40);
    const { runs, issues } = importText(lines.join('\n'), 'cut.jsonl');
    expect(issues.filter((i) => i.level === 'error')).toEqual([expect.objectContaining({ line: 2, message: expect.stringContaining('not valid JSON') })]);
    expect(runs.length).toBeGreaterThan(0);
  });

  it('reads the GenAI system instructions and legacy Traceloop prompt attributes', () => {
    const span = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      name: 'chat gpt-4o',
      startTimeUnixNano: '1714650000000000000',
      endTimeUnixNano: '1714650001000000000',
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.system_instructions', value: { stringValue: JSON.stringify([{ type: 'text', content: 'Be brief.' }]) } },
        { key: 'gen_ai.prompt.0.role', value: { stringValue: 'user' } },
        { key: 'gen_ai.prompt.0.content', value: { stringValue: 'Hi' } },
        { key: 'gen_ai.completion.0.role', value: { stringValue: 'assistant' } },
        { key: 'gen_ai.completion.0.content', value: { stringValue: 'Hello.' } },
        { key: 'gen_ai.completion.0.finish_reason', value: { stringValue: 'length' } },
        { key: 'gen_ai.usage.prompt_tokens', value: { intValue: '7' } },
        { key: 'gen_ai.usage.completion_tokens', value: { intValue: 2 } },
      ],
    };
    const { runs } = importText(JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [span] }] }] }), 'legacy.json');
    const step = runs[0].steps[0];
    expect(step.type).toBe('llm');
    expect(step.input).toEqual({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] });
    expect(step.output).toEqual({ role: 'assistant', content: 'Hello.' });
    expect(step.metadata.finish_reason).toBe('length');
    expect(step.usage).toEqual({ input_tokens: 7, output_tokens: 2 });
    expect(runs[0].run.pipeline).toBe('chat gpt-4o');
  });
});

describe('format detection', () => {
  it('recognises each committed fixture from the head of the file', () => {
    const expected: Record<string, string> = {
      'otlp-openinference-langgraph.json': 'otlp',
      'otlp-openinference-langgraph.orphan-derived.json': 'otlp',
      'otlp-traceloop-langgraph.jsonl': 'otlp',
      'langchain-run-tree-langgraph.json': 'langchain',
      'chat-transcript-langgraph-multi-agent.json': 'chat-transcript',
    };
    for (const [file, format] of Object.entries(expected)) expect(detectForeignFormat(fixtureText(file).slice(0, 64 * 1024), file)).toBe(format);
  });

  it('recognises a LangChain run tree larger than the head it is shown', () => {
    const text = fixtureText('langchain-run-tree-langgraph.json');
    expect(text.length).toBeGreaterThan(1000);
    expect(detectForeignFormat(text.slice(0, 1000), 'big.json')).toBe('langchain');
  });

  it('leaves native records and unknown JSON to the caller, which names the supported formats', () => {
    expect(detectForeignFormat('{"type":"run-start","v":"1.0","run_id":"r1","pipeline":"p","ts":1}\n', 'run.jsonl')).toBeNull();
    expect(detectForeignFormat('{"hello": "world"}', 'x.json')).toBeNull();
    expect(detectForeignFormat('name,value\na,1\n', 'x.csv')).toBeNull();
    for (const word of ['OTLP', 'OpenInference', 'Traceloop', 'LangChain', 'chat transcripts']) expect(SUPPORTED_FORMATS_DESCRIPTION).toContain(word);
  });

  it('answers a document that is not OTLP after all with an error, not an exception', () => {
    const { records, errors } = parseForeignFile('{"resourceSpans": 3}', 'otlp', 'odd.json');
    expect(records).toEqual([]);
    expect(errors[0]).toMatchObject({ level: 'error', line: 1 });
  });
});
