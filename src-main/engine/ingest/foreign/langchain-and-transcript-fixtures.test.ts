import { describe, expect, it } from 'vitest';
import { fixtureText, importFixture, importText, parentOf, stepNamed } from '../../../../test/support/foreign-fixtures';

const RUN_TREE = 'langchain-run-tree-langgraph.json';
const TRANSCRIPT = 'chat-transcript-langgraph-multi-agent.json';

type LcRun = { id: string; start_time: number | string; end_time?: number | string; child_runs: LcRun[]; parent_run_id?: string };

describe('LangChain run trees collected by RunCollectorCallbackHandler', () => {
  const { runs, issues } = importFixture(RUN_TREE);

  it('imports each root run as a run, without issues', () => {
    expect(issues).toEqual([]);
    expect(runs.map((r) => [r.run.pipeline, r.run.status, r.run.source_format])).toEqual([
      ['support_agent', 'ok', 'langchain'],
      ['support_agent', 'ok', 'langchain'],
      ['summarize_conversation', 'error', 'langchain'],
    ]);
    expect(runs[0].run.input).toEqual({ messages: [{ role: 'user', content: 'When will my order A-1042 arrive?' }] });
  });

  it('maps run types and keeps the child_runs nesting', () => {
    const run = runs[0];
    const byName = Object.fromEntries(run.steps.map((s) => [s.name, s.type]));
    expect(byName).toMatchObject({ support_agent: 'generic', KnowledgeBaseRetriever: 'retrieval', ChatOpenAI: 'llm', lookup_order: 'tool' });
    expect(parentOf(run, stepNamed(run, 'KnowledgeBaseRetriever'))!.name).toBe('retrieve');
    expect(parentOf(run, stepNamed(run, 'retrieve'))!.name).toBe('support_agent');
    expect(stepNamed(run, 'ChatOpenAI', 1).replay_key).toBe('support_agent#0/agent#1/ChatOpenAI#0');
    run.steps.forEach((s, i) => expect(s.index).toBe(i));
  });

  it('reads documents, the model call and the tool result', () => {
    const run = runs[0];
    expect(stepNamed(run, 'KnowledgeBaseRetriever').input).toBe('When will my order A-1042 arrive?');
    expect(stepNamed(run, 'KnowledgeBaseRetriever').output).toEqual([
      { id: 'kb-shipping', content: 'Orders ship within 2 business days from the Porto warehouse.', metadata: { source: 'kb-shipping' } },
    ]);
    const llm = stepNamed(run, 'ChatOpenAI');
    expect(llm.output).toEqual({ role: 'assistant', content: '', tool_calls: [{ id: 'call_lookup_order_1', name: 'lookup_order', arguments: { order_id: 'A-1042' } }] });
    expect(llm.usage).toEqual({ input_tokens: 38, output_tokens: 12, total_tokens: 50 });
    expect(llm.model).toBe('stub-gpt-2024-05-01');
    expect(llm.metadata.finish_reason).toBe('tool_calls');
    const tool = stepNamed(run, 'lookup_order');
    expect(tool.input).toEqual({ order_id: 'A-1042' });
    expect(JSON.parse(tool.output as string)).toMatchObject({ ships_on: '2024-05-03' });
  });

  it('shows the tool that threw as an errored step while the agent run recovered', () => {
    const run = runs[1];
    const tool = stepNamed(run, 'refund_order');
    expect(tool.status).toBe('error');
    expect(tool.error).toMatchObject({ type: 'Error', message: 'Refund service rejected order A-1042: amount exceeds the automatic refund limit' });
    expect(tool.error!.stack).toMatch(/^Error: Refund service rejected/);
    expect(run.run.status).toBe('ok');
  });

  it('shows the failed model call with its HTTP status and fails the chain run', () => {
    const run = runs[2];
    expect(stepNamed(run, 'ChatOpenAI').error).toMatchObject({ type: 'Error', status: 500, message: '500 The server had an error while processing your request.' });
    expect(stepNamed(run, 'ChatPromptTemplate').type).toBe('prompt');
    expect(run.run.error!.status).toBe(500);
  });

  it('reads LangSmith-style ISO times (no zone, microseconds) as the same instants', () => {
    const doc = JSON.parse(fixtureText(RUN_TREE)) as LcRun[];
    const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '123');
    const rewrite = (r: LcRun) => {
      r.start_time = iso(r.start_time as number);
      if (r.end_time !== undefined) r.end_time = iso(r.end_time as number);
      r.child_runs.forEach(rewrite);
    };
    doc.forEach(rewrite);
    const again = importText(JSON.stringify(doc), 'iso.json').runs;
    expect(again.map((r) => r.steps.map((s) => s.started_at))).toEqual(runs.map((r) => r.steps.map((s) => s.started_at + 0.123)));
  });

  it('rebuilds the same tree from a flat LangSmith list linked by parent_run_id', () => {
    const doc = JSON.parse(fixtureText(RUN_TREE)) as LcRun[];
    const flat: LcRun[] = [];
    const walk = (r: LcRun) => {
      flat.push({ ...r, child_runs: [] });
      r.child_runs.forEach(walk);
    };
    doc.forEach(walk);
    flat.reverse(); // children before parents, as an export sorted by end time lists them
    const again = importText(JSON.stringify(flat), 'flat.json').runs;
    const shape = (rs: typeof runs) =>
      rs.map((r) => [r.run.run_id, r.steps.map((s) => [s.index, s.name, s.type, s.parent_id, s.replay_key])]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(shape(again)).toEqual(shape(runs));
  });

  it('reports a run without an id by its position and keeps its children under a synthetic root', () => {
    const doc = JSON.parse(fixtureText(RUN_TREE)) as LcRun[];
    delete (doc[0].child_runs[1] as Partial<LcRun>).id;
    const { runs: again, issues } = importText(JSON.stringify(doc, null, 1), 'broken.json');
    expect(issues[0]).toMatchObject({ level: 'error', message: expect.stringContaining('[0].child_runs[1]: no "id"') });
    expect(issues[1]).toMatchObject({ level: 'warning', message: expect.stringContaining('not in the file') });
    expect(again).toHaveLength(3);
    const damaged = again.find((r) => r.run.run_id === runs[0].run.run_id)!;
    expect(damaged.steps.some((s) => s.name === 'retrieve')).toBe(false);
    expect(parentOf(damaged, stepNamed(damaged, 'KnowledgeBaseRetriever'))!.metadata.synthetic).toBe(true);
    expect(damaged.run.status).toBe('incomplete');
    expect(again[1].run.status).toBe('ok');
  });
});

describe('multi-agent chat transcript', () => {
  const { runs, issues } = importFixture(TRANSCRIPT);
  const run = runs[0];

  it('imports each message as a step named for its speaker', () => {
    expect(issues).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(run.run.source_format).toBe('chat-transcript');
    expect(run.steps.map((s) => [s.name, s.type])).toEqual([
      ['customer', 'generic'],
      ['planner', 'agent'],
      ['researcher', 'agent'],
      ['writer', 'agent'],
    ]);
    expect(run.run.input).toBe('Can I get a refund for order A-1042?');
    expect(run.run.output).toContain('your refund for order A-1042 has been approved');
    expect(run.run.status).toBe('ok');
  });

  it('gives each agent the message it answered as input and its own message as output', () => {
    const writer = stepNamed(run, 'writer');
    expect(writer.input).toEqual({
      role: 'assistant',
      name: 'researcher',
      content: 'Policy found: refunds over 200 EUR need manual approval; order A-1042 is 340 EUR.',
    });
    expect(writer.output).toBe('Dear customer, your refund for order A-1042 has been approved and will arrive in 3 days.');
    expect(run.run.extra.times_synthetic).toBe(true);
  });

  it('gives the same run id when the same transcript is imported again', () => {
    expect(importFixture(TRANSCRIPT).runs[0].run.run_id).toBe(run.run.run_id);
  });

  it('reads AutoGen-style messages with a source and timestamps, one per line', () => {
    const lines = [
      { source: 'user', content: 'Plan a trip', timestamp: '2024-05-01T10:00:00Z' },
      { source: 'planner', content: 'Day 1: Lisbon', timestamp: '2024-05-01T10:00:02Z' },
    ].map((m) => JSON.stringify(m));
    const { runs: r } = importText(lines.join('\n'), 'autogen.jsonl');
    expect(r[0].steps.map((s) => [s.name, s.type, s.started_at])).toEqual([
      ['user', 'agent', Date.parse('2024-05-01T10:00:00Z')],
      ['planner', 'agent', Date.parse('2024-05-01T10:00:02Z')],
    ]);
    expect(r[0].run.extra.times_synthetic).toBeUndefined();
  });
});
