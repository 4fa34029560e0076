import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../../src-shared/model';
import { fixtureText, importFixture, parentOf, runWithStep, stepNamed } from '../../../../test/support/foreign-fixtures';

const OPENINFERENCE = 'otlp-openinference-langgraph.json';
const TRACELOOP = 'otlp-traceloop-langgraph.jsonl';
const ORPHAN = 'otlp-openinference-langgraph.orphan-derived.json';

function assertStartOrder(run: RunDetail): void {
  const index = new Map(run.steps.map((s) => [s.step_id, s.index]));
  run.steps.forEach((s, i) => {
    expect(s.index).toBe(i);
    if (s.parent_id !== null) expect(index.get(s.parent_id)!).toBeLessThan(s.index);
  });
  for (let i = 1; i < run.steps.length; i++) {
    const prev = run.steps[i - 1];
    const cur = run.steps[i];
    // Start order, except that a child whose clock ran ahead of its parent's waits for it.
    if (cur.started_at < prev.started_at) expect(cur.parent_id !== null).toBe(true);
  }
  expect(new Set(run.steps.map((s) => s.replay_key)).size).toBe(run.steps.length);
}

describe('OpenInference (LangChain + openai instrumentations) OTLP document', () => {
  const { runs, issues } = importFixture(OPENINFERENCE);
  const agentRun = runWithStep(runs, 'handle_support_request');
  const failedRun = runWithStep(runs, 'summarize_conversation');

  it('imports one run per trace, named after the service, complete and without issues', () => {
    expect(runs).toHaveLength(2);
    expect(issues).toEqual([]);
    expect(agentRun.run.pipeline).toBe('support-bot-openinference');
    expect(agentRun.run.source_format).toBe('otlp');
    expect(agentRun.run.status).toBe('ok');
    expect(agentRun.run.input).toBe('When will my order A-1042 arrive?');
    expect(agentRun.run.output).toContain('order A-1042 ships on 3 May');
    expect(agentRun.run.entry).toBeNull();
  });

  it('keeps the LangGraph nesting: graph under the request, nodes under the graph, calls under nodes', () => {
    const root = stepNamed(agentRun, 'handle_support_request');
    const graph = stepNamed(agentRun, 'support_agent');
    expect(root.parent_id).toBeNull();
    expect(parentOf(agentRun, graph)).toBe(root);
    for (const node of ['retrieve', 'agent', 'tools']) expect(parentOf(agentRun, stepNamed(agentRun, node))).toBe(graph);
    expect(parentOf(agentRun, stepNamed(agentRun, 'KnowledgeBaseRetriever'))!.name).toBe('retrieve');
    expect(parentOf(agentRun, stepNamed(agentRun, 'ChatOpenAI'))!.name).toBe('agent');
    expect(parentOf(agentRun, stepNamed(agentRun, 'lookup_order'))!.name).toBe('tools');
    expect(stepNamed(agentRun, 'agent', 1).replay_key).toBe('handle_support_request#0/support_agent#0/agent#1');
    assertStartOrder(agentRun);
    assertStartOrder(failedRun);
  });

  it('lists spans children-first in the file, yet numbers every parent before its children', () => {
    const text = fixtureText(OPENINFERENCE);
    expect(text.indexOf('"name": "ChatOpenAI"')).toBeLessThan(text.indexOf('"name": "support_agent"'));
    const graph = stepNamed(agentRun, 'support_agent');
    expect(graph.index).toBe(1);
  });

  it('maps span kinds to step types', () => {
    const types = Object.fromEntries(agentRun.steps.map((s) => [s.name, s.type]));
    expect(stepNamed(agentRun, 'handle_support_request').metadata.agent_name).toBe('support-agent');
    expect(types).toMatchObject({
      handle_support_request: 'agent',
      KnowledgeBaseRetriever: 'retrieval',
      'OpenAI Embeddings': 'retrieval',
      ChatOpenAI: 'llm',
      'OpenAI Chat Completions': 'llm',
      lookup_order: 'tool',
    });
    expect(stepNamed(failedRun, 'ChatPromptTemplate').type).toBe('prompt');
  });

  it('reads the retriever query and its documents', () => {
    const retriever = stepNamed(agentRun, 'KnowledgeBaseRetriever');
    expect(retriever.input).toBe('When will my order A-1042 arrive?');
    expect(retriever.output).toEqual([{ content: 'Orders ship within 2 business days from the Porto warehouse.', metadata: { source: 'kb-shipping' } }]);
    const embed = stepNamed(agentRun, 'OpenAI Embeddings');
    expect(embed.model).toBe('stub-embed');
    expect(embed.metadata.operation).toBe('embeddings');
    expect(embed.output).toEqual([{ text: 'When will my order A-1042 arrive?', vector: expect.any(Array) }]);
  });

  it('reads the model call: messages in, tool call out, tokens, model and finish reason', () => {
    const llm = stepNamed(agentRun, 'ChatOpenAI');
    expect(llm.input).toEqual({
      messages: [
        { role: 'user', content: 'When will my order A-1042 arrive?' },
        { role: 'system', content: 'You are a support agent. Use this context:\n[kb-shipping] Orders ship within 2 business days from the Porto warehouse.' },
      ],
    });
    expect(llm.output).toEqual({ role: 'assistant', content: '', tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A-1042' } }] });
    expect(llm.usage).toEqual({ input_tokens: 38, output_tokens: 12, total_tokens: 50 });
    expect(llm.model).toBe('stub-gpt');
    expect(llm.metadata.finish_reason).toBe('tool_calls');
    const answer = stepNamed(agentRun, 'ChatOpenAI', 1);
    expect((answer.input as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual(['user', 'system', 'assistant', 'tool']);
    expect(answer.output).toMatchObject({ role: 'assistant', content: expect.stringContaining('ships on 3 May') });
  });

  it('reads the tool result out of the ToolMessage LangChain wraps it in', () => {
    const tool = stepNamed(agentRun, 'lookup_order');
    expect(tool.status).toBe('ok');
    expect(JSON.parse(tool.output as string)).toEqual({ order_id: 'A-1042', status: 'packed', ships_on: '2024-05-03' });
    expect(tool.metadata.tool_call_id).toBe('call_lookup_order_1');
  });

  it('marks the openai-layer copy of each LangChain model call as a duplicate, so tokens count once', () => {
    const langchainCalls = agentRun.steps.filter((s) => s.name === 'ChatOpenAI');
    const clientCalls = agentRun.steps.filter((s) => s.name === 'OpenAI Chat Completions');
    expect(clientCalls).toHaveLength(2);
    expect(clientCalls.map((s) => s.metadata.duplicate_of)).toEqual(langchainCalls.map((s) => s.step_id));
    expect(langchainCalls.every((s) => s.metadata.duplicate_of === undefined)).toBe(true);
    const counted = agentRun.steps.filter((s) => s.metadata.duplicate_of === undefined).reduce((n, s) => n + (s.usage?.total_tokens ?? 0), 0);
    expect(counted).toBe(50 + 84);
  });

  it('shows a model call that failed with HTTP 500 as an errored step, and its chain as failed', () => {
    expect(failedRun.run.status).toBe('error');
    const llm = stepNamed(failedRun, 'ChatOpenAI');
    expect(llm.status).toBe('error');
    expect(llm.error).toMatchObject({ type: 'Error', status: 500 });
    expect(llm.error!.message).toMatch(/^500 The server had an error while processing your request\./);
    expect(stepNamed(failedRun, 'summarize_conversation').status).toBe('error');
    expect(failedRun.run.error?.status).toBe(500);
  });

  it('keeps every original span attribute and the OTel identity of each step', () => {
    const doc = JSON.parse(fixtureText(OPENINFERENCE));
    const spans = doc.resourceSpans.flatMap((r: { scopeSpans: { spans: unknown[] }[] }) => r.scopeSpans.flatMap((s) => s.spans)) as {
      spanId: string;
      attributes: { key: string }[];
    }[];
    const steps = runs.flatMap((r) => r.steps);
    for (const span of spans) {
      const step = steps.find((s) => s.step_id === span.spanId)!;
      expect(Object.keys(step.metadata.attributes as object).sort()).toEqual(span.attributes.map((a) => a.key).sort());
      expect((step.metadata.otel as { span_id: string }).span_id).toBe(span.spanId);
    }
  });
});

describe('Traceloop/OpenLLMetry (LangChain + openai instrumentations) OTLP JSON Lines', () => {
  const { runs, issues } = importFixture(TRACELOOP);
  const agentRun = runWithStep(runs, 'refund_request');

  it('gathers a trace whose spans straddle several exported batches into one run', () => {
    const lines = fixtureText(TRACELOOP).trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    const agentTrace = agentRun.run.extra.otel_trace_id as string;
    const linesWithTrace = lines.filter((l) => l.includes(agentTrace));
    expect(linesWithTrace.length).toBeGreaterThan(1);
    expect(agentRun.steps.length).toBe(lines.join('\n').split(`"traceId":"${agentTrace}"`).length - 1);
    assertStartOrder(agentRun);
  });

  it('records the LangChain spans flat under the application span, as this instrumentation parents them', () => {
    const root = stepNamed(agentRun, 'refund_request');
    expect(root.parent_id).toBeNull();
    expect(root.type).toBe('agent');
    expect(root.metadata.agent_name).toBe('refund-agent');
    expect(agentRun.steps.filter((s) => s !== root).every((s) => s.parent_id === root.step_id)).toBe(true);
  });

  it('reads GenAI messages in the parts format, tokens and finish reasons', () => {
    const llm = agentRun.steps.find((s) => s.type === 'llm')!;
    expect(llm.name).toBe('chat stub-gpt');
    const input = llm.input as { messages: { role: string; content: string }[] };
    expect(input.messages.map((m) => m.role)).toEqual(['user', 'system', 'system']);
    expect(input.messages[0].content).toBe('When will my order A-1042 arrive?');
    expect(llm.usage).toEqual({ input_tokens: 71, output_tokens: 12, total_tokens: 83 });
    expect(llm.metadata.finish_reason).toBe('tool_call');
    const client = agentRun.steps.filter((s) => s.type === 'llm')[1];
    expect(client.output).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_refund_order_1', name: 'refund_order', arguments: { order_id: 'A-1042' } }],
    });
  });

  it('marks the openai-layer span of each model call as a duplicate of the LangChain one', () => {
    const llms = agentRun.steps.filter((s) => s.type === 'llm');
    expect(llms).toHaveLength(4);
    expect(llms.map((s) => s.metadata.duplicate_of ?? null)).toEqual([null, llms[0].step_id, null, llms[2].step_id]);
    expect(llms[1].model).toBe('stub-gpt-2024-05-01');
  });

  it('shows a tool that threw (status 2 + exception event) with type, message and stack', () => {
    const tool = agentRun.steps.find((s) => s.type === 'tool')!;
    expect(tool.status).toBe('error');
    expect(tool.error).toMatchObject({ type: 'Error', message: 'Refund service rejected order A-1042: amount exceeds the automatic refund limit' });
    expect(tool.error!.stack).toContain('support-agent-graph.ts');
    expect(tool.input).toEqual({ args: ['{"order_id":"A-1042"}'] });
    // The graph recovered: the run itself succeeded.
    expect(agentRun.run.status).toBe('ok');
  });

  it('surfaces the weather service failure that left no span, only text in the next model input', () => {
    const carriers = agentRun.steps.filter((s) => s.metadata.upstream_error !== undefined);
    expect(carriers).toHaveLength(1);
    expect(carriers[0].type).toBe('llm');
    expect(carriers[0].metadata.upstream_error).toContain('weather API returned 503 Service Unavailable');
    const warning = issues.find((i) => i.message.includes('503 Service Unavailable'))!;
    expect(warning.level).toBe('warning');
    const spanId = (carriers[0].metadata.otel as { span_id: string }).span_id;
    const lines = fixtureText(TRACELOOP).split('\n');
    expect(lines[warning.line - 1]).toContain(`"spanId":"${spanId}"`);
    // The refund error is explained by the failed tool step, so it is not reported again.
    expect(issues.some((i) => i.message.includes('Refund service rejected'))).toBe(false);
  });

  it('imports the failing summary, whose spans this instrumentation split over three traces, as three runs', () => {
    expect(runs).toHaveLength(4);
    const failedCall = runWithStep(runs, 'chat stub-fail');
    expect(failedCall.steps).toHaveLength(1);
    expect(failedCall.run.status).toBe('error');
    expect(failedCall.steps[0].error).toMatchObject({ type: 'Error', status: 500 });
    expect(failedCall.steps[0].error!.stack).toContain('makeStatusError');
  });
});

describe('orphan spans (derived from the OpenInference file by deleting the LangGraph root span)', () => {
  const { runs, issues } = importFixture(ORPHAN);
  const run = runWithStep(runs, 'handle_support_request');

  it('keeps the orphaned node spans under a synthetic root and marks the run incomplete', () => {
    expect(run.run.status).toBe('incomplete');
    const synthetic = run.steps.find((s) => s.metadata.synthetic === true)!;
    expect(synthetic.parent_id).toBeNull();
    for (const node of ['retrieve', 'agent', 'tools']) expect(parentOf(run, stepNamed(run, node))).toBe(synthetic);
    expect(run.steps.some((s) => s.name === 'support_agent')).toBe(false);
    expect(run.steps).toHaveLength(24);
    assertStartOrder(run);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ level: 'warning' });
    expect(issues[0].message).toContain(synthetic.metadata.missing_step_id as string);
  });

  it('leaves the other trace in the file complete', () => {
    expect(runWithStep(runs, 'summarize_conversation').run.status).toBe('error');
  });
});
