import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../../src-shared/model';
import type { TraceRecord } from '../../../../src-shared/trace-format';
import { foldRecords } from '../native/fold-records';
import { importFixture, importText } from '../../../../test/support/foreign-fixtures';
import { exportOtlp } from '../foreign/index';

function comparable(detail: RunDetail) {
  return detail.steps.map((s) => ({
    id: s.step_id,
    index: s.index,
    name: s.name,
    type: s.type,
    parent: s.parent_id,
    key: s.replay_key,
    status: s.status,
    input: s.input,
    output: s.output,
    error: s.error,
    usage: s.usage,
    model: s.model,
    started: s.started_at,
    ended: s.ended_at,
  }));
}

function roundTrip(detail: RunDetail): RunDetail {
  const text = JSON.stringify(exportOtlp(detail));
  const { runs, issues } = importText(text, 'export.json');
  expect(issues.filter((i) => i.level === 'error')).toEqual([]);
  expect(runs).toHaveLength(1);
  return runs[0];
}

const t0 = 1_714_650_000_000;
const nativeRecords: TraceRecord[] = [
  { type: 'run-start', v: '1.0', run_id: 'run-refund-7', pipeline: 'refund-bot', ts: t0, input: { question: 'refund A-1042?' } },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's0', parent_id: null, index: 0, name: 'support agent', step_type: 'agent', replay_key: 'support agent#0', ts: t0 + 1, input: { question: 'refund A-1042?' } },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's1', parent_id: 's0', index: 1, name: 'search policies', step_type: 'retrieval', replay_key: 'support agent#0/search policies#0', ts: t0 + 2, input: 'refund policy' },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's1', ts: t0 + 10, status: 'ok', output: [{ id: 'p1', content: 'Refunds over 200 EUR need approval.', score: 0.82 }] },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's2', parent_id: 's0', index: 2, name: 'build prompt', step_type: 'prompt', replay_key: 'support agent#0/build prompt#0', ts: t0 + 11, input: { template: 'Answer: {q}' } },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's2', ts: t0 + 12, status: 'ok', output: 'Answer: refund A-1042?' },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's3', parent_id: 's0', index: 3, name: 'decide', step_type: 'llm', replay_key: 'support agent#0/decide#0', ts: t0 + 13, input: { messages: [{ role: 'system', content: 'Be careful.' }, { role: 'user', content: 'refund A-1042?' }] } },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's3', ts: t0 + 300.5, status: 'ok', model: 'gpt-4o-mini', usage: { input_tokens: 120, output_tokens: 18, total_tokens: 138, cost_usd: 0.00042 }, output: { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'refund', arguments: { order: 'A-1042', amount: 340 } }] }, metadata: { finish_reason: 'tool_calls' } },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's4', parent_id: 's0', index: 4, name: 'refund', step_type: 'tool', replay_key: 'support agent#0/refund#0', ts: t0 + 301, input: { order: 'A-1042', amount: 340 }, metadata: { side_effect: true } },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's4', ts: t0 + 350, status: 'error', error: { type: 'PaymentError', message: 'limit exceeded', stack: 'PaymentError: limit exceeded\n    at refund (pay.ts:3:9)', status: 402 } },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's5', parent_id: 's0', index: 5, name: 'reply', step_type: 'llm', replay_key: 'support agent#0/reply#0', ts: t0 + 351, input: { messages: [{ role: 'tool', content: 'limit exceeded', tool_call_id: 'c1' }] } },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's5', ts: t0 + 400, status: 'ok', output: 'Your refund needs approval.', usage: { input_tokens: 30, output_tokens: 6 } },
  { type: 'step-start', run_id: 'run-refund-7', step_id: 's6', parent_id: 's0', index: 6, name: 'audit log', step_type: 'generic', replay_key: 'support agent#0/audit log#0', ts: t0 + 401, input: 42 },
  { type: 'step-end', run_id: 'run-refund-7', step_id: 's0', ts: t0 + 402, status: 'ok', output: 'Your refund needs approval.' },
];

describe('OTLP export', () => {
  it('writes GenAI and OpenInference attributes that describe each step', () => {
    const detail = foldRecords(nativeRecords, { final: true })[0];
    const doc = exportOtlp(detail) as { resourceSpans: { resource: { attributes: { key: string }[] }; scopeSpans: { spans: { name: string; attributes: { key: string; value: Record<string, unknown> }[]; status: { code: number }; events?: { name: string }[] }[] }[] }[] };
    const spans = doc.resourceSpans[0].scopeSpans[0].spans;
    const attr = (name: string, key: string) => spans.find((s) => s.name === name)!.attributes.find((a) => a.key === key)?.value;
    expect(attr('decide', 'openinference.span.kind')).toEqual({ stringValue: 'LLM' });
    expect(attr('decide', 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });
    expect(attr('decide', 'gen_ai.usage.input_tokens')).toEqual({ intValue: '120' });
    expect(attr('decide', 'llm.token_count.completion')).toEqual({ intValue: '18' });
    expect(attr('decide', 'gen_ai.request.model')).toEqual({ stringValue: 'gpt-4o-mini' });
    expect(JSON.parse(attr('decide', 'gen_ai.input.messages')!.stringValue as string)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be careful.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'refund A-1042?' }] },
    ]);
    expect(JSON.parse(attr('decide', 'gen_ai.output.messages')!.stringValue as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: '' }, { type: 'tool_call', id: 'c1', name: 'refund', arguments: { order: 'A-1042', amount: 340 } }], finish_reason: 'tool_calls' },
    ]);
    expect(attr('refund', 'gen_ai.operation.name')).toEqual({ stringValue: 'execute_tool' });
    expect(attr('refund', 'gen_ai.tool.name')).toEqual({ stringValue: 'refund' });
    expect(attr('search policies', 'openinference.span.kind')).toEqual({ stringValue: 'RETRIEVER' });
    const failed = spans.find((s) => s.name === 'refund')!;
    expect(failed.status.code).toBe(2);
    expect(failed.events!.map((e) => e.name)).toEqual(['exception']);
    expect(doc.resourceSpans[0].resource.attributes.map((a) => a.key)).toContain('service.name');
  });

  it('imports back to the same steps for a native run', () => {
    const detail = foldRecords(nativeRecords, { final: true })[0];
    const again = roundTrip(detail);
    expect(comparable(again)).toEqual(comparable(detail));
    expect(again.run.run_id).toBe('run-refund-7');
    expect(again.run.pipeline).toBe('refund-bot');
    expect(again.run.input).toEqual({ question: 'refund A-1042?' });
    // The audit step never ended: it is still a step without an end after the round trip.
    expect(again.steps.find((s) => s.name === 'audit log')!.status).toBe('running');
  });

  it.each([
    'otlp-openinference-langgraph.json',
    'otlp-traceloop-langgraph.jsonl',
    'otlp-openinference-langgraph.orphan-derived.json',
    'langchain-run-tree-langgraph.json',
    'chat-transcript-langgraph-multi-agent.json',
  ])('imports back to the same steps for every run of %s', (fixture) => {
    for (const detail of importFixture(fixture).runs) {
      const again = roundTrip(detail);
      expect(comparable(again)).toEqual(comparable(detail));
      expect(again.steps.map((s) => s.metadata.duplicate_of)).toEqual(detail.steps.map((s) => s.metadata.duplicate_of));
    }
  });
});
