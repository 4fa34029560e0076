import { readFileSync } from 'node:fs';
import { AIMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { FakeChatModel, FakeListChatModel, FakeRetriever } from '@langchain/core/utils/testing';
import { Document } from '@langchain/core/documents';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunDetail, Step } from '../../../../src-shared/model';
import { foldRecords } from '../../../../src-main/engine/ingest/native/fold-records';
import { parseTraceText } from '../../../../src-main/engine/ingest/native/parse-lines';
import { pipeline, runStep, step } from '../index.js';
import { runFiles, tempHome } from '../test-support/read-runs.js';
import { TracebackCallbackHandler } from './langchain.js';
import { llmFacts } from './langchain-values.js';

let home: string;
let savedHome: string | undefined;

beforeEach(() => {
  savedHome = process.env.TRACEBACK_HOME;
  home = tempHome();
  process.env.TRACEBACK_HOME = home;
});

afterEach(() => {
  if (savedHome === undefined) delete process.env.TRACEBACK_HOME;
  else process.env.TRACEBACK_HOME = savedHome;
});

/** Every run in the inbox, read the way the engine imports a file. */
function importedRuns(): RunDetail[] {
  return runFiles(home).flatMap((file) => {
    const { records, errors } = parseTraceText(readFileSync(file, 'utf8'));
    expect(errors).toEqual([]);
    return foldRecords(records, { final: true });
  });
}

function onlyImportedRun(): RunDetail {
  const runs = importedRuns();
  expect(runs).toHaveLength(1);
  return runs[0];
}

function byName(detail: RunDetail, name: string): Step {
  const s = detail.steps.find((x) => x.name === name);
  if (!s) throw new Error(`no step ${name} in ${detail.steps.map((x) => x.name).join(', ')}`);
  return s;
}

const qaChain = (model = new FakeListChatModel({ responses: ['The moon pulls the sea.'] })) =>
  ChatPromptTemplate.fromMessages([
    ['system', 'Answer in one sentence.'],
    ['human', '{question}'],
  ])
    .pipe(model)
    .pipe(new StringOutputParser());

/** A fake chat model whose reply carries what real providers report: tool calls, usage, finish reason. */
class ToolCallingFakeModel extends FakeListChatModel {
  override invocationParams() {
    return { model: 'fake-model-1', temperature: 0 };
  }
  override async _generate() {
    const message = new AIMessage({
      content: 'Let me check the weather.',
      tool_calls: [{ id: 'call_1', name: 'weather', args: { city: 'Oslo' }, type: 'tool_call' }],
      usage_metadata: { input_tokens: 21, output_tokens: 7, total_tokens: 28 },
      response_metadata: { finish_reason: 'tool_calls', model_name: 'fake-model-1-2025' },
    });
    return { generations: [{ text: 'Let me check the weather.', message }] };
  }
}

describe('LangChain runs recorded by the callback handler', () => {
  it('a prompt → model → parser sequence becomes a run whose steps are the prompt, the model call and the parser', async () => {
    const handler = new TracebackCallbackHandler({ pipeline: 'qa' });
    const answer = await qaChain().invoke({ question: 'Why are there tides?' }, { callbacks: [handler] });
    expect(answer).toBe('The moon pulls the sea.');

    const { run, steps } = onlyImportedRun();
    expect(run).toMatchObject({ pipeline: 'qa', status: 'ok', input: { question: 'Why are there tides?' }, output: 'The moon pulls the sea.' });
    expect(run.run_id).toBe(handler.lastRunId);
    expect(run.tags).toEqual({ integration: 'langchain' });
    expect(run.sdk?.language).toBe('typescript');
    expect(steps.map((s) => [s.index, s.name, s.type, s.parent_id, s.replay_key, s.status])).toEqual([
      [0, 'ChatPromptTemplate', 'prompt', null, 'ChatPromptTemplate#0', 'ok'],
      [1, 'FakeListChatModel', 'llm', null, 'FakeListChatModel#0', 'ok'],
      [2, 'StrOutputParser', 'generic', null, 'StrOutputParser#0', 'ok'],
    ]);
    const messages = [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: 'Why are there tides?' },
    ];
    expect(steps[0].input).toEqual({ question: 'Why are there tides?' });
    expect(steps[0].output).toEqual({ messages });
    expect(steps[1].input).toEqual({ messages });
    expect(steps[1].output).toBe('The moon pulls the sea.');
    expect(steps[2].output).toBe('The moon pulls the sea.');
    expect(steps[1].ended_at).not.toBeNull();
  });

  it("a model call records the model asked for, its tool calls, token usage and finish reason", async () => {
    const handler = new TracebackCallbackHandler();
    await new ToolCallingFakeModel({ responses: [] }).invoke('What is the weather in Oslo?', { callbacks: [handler] });

    const { run, steps } = onlyImportedRun();
    expect(run.pipeline).toBe('ToolCallingFakeModel');
    expect(steps).toHaveLength(1);
    const llm = steps[0];
    expect(llm).toMatchObject({ type: 'llm', model: 'fake-model-1', usage: { input_tokens: 21, output_tokens: 7, total_tokens: 28 } });
    expect(llm.input).toEqual({ messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] });
    expect(llm.output).toEqual({ text: 'Let me check the weather.', tool_calls: [{ id: 'call_1', name: 'weather', input: { city: 'Oslo' } }] });
    expect(llm.metadata).toMatchObject({ finish_reason: 'tool_calls', response_model: 'fake-model-1-2025', invocation_params: { temperature: 0 } });
  });

  it('token usage reported only in llmOutput.tokenUsage (older integrations) is recorded too', () => {
    const facts = llmFacts({ generations: [[{ text: 'hi', generationInfo: { finish_reason: 'stop' } }]], llmOutput: { tokenUsage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 } } });
    expect(facts.output).toBe('hi');
    expect(facts.usage).toEqual({ input_tokens: 3, output_tokens: 1, total_tokens: 4 });
    expect(facts.metadata.finish_reason).toBe('stop');
  });

  it('a tool that throws records its name, input and error, and so does the run it ended', async () => {
    const weather = tool(
      async ({ city }: { city: string }) => {
        throw new Error(`weather service down for ${city}`);
      },
      { name: 'weather', description: 'Current weather', schema: z.object({ city: z.string() }) },
    );
    const handler = new TracebackCallbackHandler();
    await expect(weather.invoke({ city: 'Oslo' }, { callbacks: [handler] })).rejects.toThrow('weather service down for Oslo');

    const { run, steps } = onlyImportedRun();
    expect(run.status).toBe('error');
    expect(run.error).toMatchObject({ type: 'Error', message: 'weather service down for Oslo' });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ name: 'weather', type: 'tool', status: 'error', input: { city: 'Oslo' }, output: null });
    expect(steps[0].error).toMatchObject({ type: 'Error', message: 'weather service down for Oslo' });
    expect(steps[0].error?.stack).toContain('weather service down');
  });

  it('a tool failure caught by the chain around it fails only the tool step', async () => {
    const weather = tool(
      async () => {
        throw new Error('timeout');
      },
      { name: 'weather', description: 'Current weather', schema: z.object({ city: z.string() }) },
    );
    const agent = RunnableLambda.from(async (city: string, config) => {
      try {
        return await weather.invoke({ city }, config);
      } catch {
        return 'weather unknown';
      }
    }).withConfig({ runName: 'agent' });
    const handler = new TracebackCallbackHandler();
    expect(await agent.invoke('Oslo', { callbacks: [handler] })).toBe('weather unknown');

    const { run, steps } = onlyImportedRun();
    expect(run).toMatchObject({ status: 'ok', pipeline: 'agent', input: 'Oslo', output: 'weather unknown' });
    expect(steps.map((s) => [s.name, s.status, s.parent_id, s.replay_key])).toEqual([['weather', 'error', null, 'weather#0']]);
  });

  it('a retriever step records the query and the documents with their content and metadata', async () => {
    const retriever = new FakeRetriever({
      output: [new Document({ pageContent: 'Tides follow the moon.', metadata: { source: 'tides.md' } }), new Document({ pageContent: 'Spring tides are larger.', metadata: { source: 'spring.md', page: 2 } })],
    });
    const chain = RunnableSequence.from([retriever, RunnableLambda.from((docs: Document[]) => docs.map((d) => d.pageContent).join('\n'))]);
    const handler = new TracebackCallbackHandler();
    await chain.invoke('what causes tides', { callbacks: [handler] });

    const { steps } = onlyImportedRun();
    const retrieval = steps.find((s) => s.type === 'retrieval');
    expect(retrieval).toBeDefined();
    expect(retrieval!.input).toBe('what causes tides');
    expect(retrieval!.output).toEqual([
      { pageContent: 'Tides follow the moon.', metadata: { source: 'tides.md' } },
      { pageContent: 'Spring tides are larger.', metadata: { source: 'spring.md', page: 2 } },
    ]);
  });

  it('a two-node LangGraph graph records each node as an agent step, the model call inside its node, and no hidden plumbing', async () => {
    const State = Annotation.Root({ question: Annotation<string>(), todo: Annotation<string>(), answer: Annotation<string>() });
    const model = new FakeListChatModel({ responses: ['High tide at 14:00.'] });
    const graph = new StateGraph(State)
      .addNode('plan', async (s) => ({ todo: `look up: ${s.question}` }))
      .addNode('act', async (s) => ({ answer: String((await model.invoke(s.todo)).content) }))
      .addEdge(START, 'plan')
      .addEdge('plan', 'act')
      .addEdge('act', END)
      .compile();
    const handler = new TracebackCallbackHandler();
    const out = await graph.invoke({ question: 'tides today?' }, { callbacks: [handler] });
    expect(out.answer).toBe('High tide at 14:00.');

    const { run, steps } = onlyImportedRun();
    expect(run).toMatchObject({ pipeline: 'LangGraph', status: 'ok', input: { question: 'tides today?' } });
    expect(run.output).toMatchObject({ answer: 'High tide at 14:00.' });
    expect(steps.map((s) => [s.name, s.type, s.replay_key])).toEqual([
      ['plan', 'agent', 'plan#0'],
      ['act', 'agent', 'act#0'],
      ['FakeListChatModel', 'llm', 'act#0/FakeListChatModel#0'],
    ]);
    const [plan, act, llm] = steps;
    expect(plan.parent_id).toBeNull();
    expect(act.parent_id).toBeNull();
    expect(llm.parent_id).toBe(act.step_id);
    expect(plan.output).toEqual({ todo: 'look up: tides today?' });
    expect(act.input).toMatchObject({ question: 'tides today?', todo: 'look up: tides today?' });
    expect(llm.input).toEqual({ messages: [{ role: 'user', content: 'look up: tides today?' }] });
    expect(act.metadata).toMatchObject({ langgraph_node: 'act', langgraph_step: 2 });
  });

  it('a LangGraph node that throws fails its step and the run', async () => {
    const State = Annotation.Root({ n: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode('count', async (s) => ({ n: s.n + 1 }))
      .addNode('check', async () => {
        throw new RangeError('n out of range');
      })
      .addEdge(START, 'count')
      .addEdge('count', 'check')
      .addEdge('check', END)
      .compile();
    const handler = new TracebackCallbackHandler();
    await expect(graph.invoke({ n: 1 }, { callbacks: [handler] })).rejects.toThrow('n out of range');

    const { run, steps } = onlyImportedRun();
    expect(run.status).toBe('error');
    expect(run.error).toMatchObject({ type: 'RangeError', message: 'n out of range' });
    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ['count', 'ok'],
      ['check', 'error'],
    ]);
    expect(steps[1].error).toMatchObject({ type: 'RangeError', message: 'n out of range' });
  });

  it('two concurrent invocations through one handler write two runs that never mix', async () => {
    const tick = () => new Promise((r) => setImmediate(r));
    const chain = RunnableSequence.from([
      RunnableLambda.from(async (q: string) => {
        await tick();
        return `Q: ${q}`;
      }).withConfig({ runName: 'frame' }),
      new FakeChatModel({}),
      RunnableLambda.from(async (m: AIMessage) => {
        await tick();
        return String(m.content);
      }).withConfig({ runName: 'read' }),
    ]);
    const handler = new TracebackCallbackHandler({ pipeline: 'echo' });
    const outs = await Promise.all(['alpha', 'beta'].map((q) => chain.invoke(q, { callbacks: [handler] })));
    expect(outs).toEqual(['Q: alpha', 'Q: beta']);

    const runs = importedRuns();
    expect(runs).toHaveLength(2);
    expect(runFiles(home)).toHaveLength(2);
    for (const { run, steps } of runs) {
      const q = run.input as string;
      expect(run.output).toBe(`Q: ${q}`);
      expect(steps.map((s) => [s.index, s.name, s.replay_key])).toEqual([
        [0, 'frame', 'frame#0'],
        [1, 'FakeChatModel', 'FakeChatModel#0'],
        [2, 'read', 'read#0'],
      ]);
      expect(steps.every((s) => s.run_id === run.run_id)).toBe(true);
      expect(byName({ run, steps }, 'FakeChatModel').output).toBe(`Q: ${q}`);
    }
  });

  it('inside an SDK pipeline the LangChain runs nest under the current SDK step, in the pipeline’s run', async () => {
    const handler = new TracebackCallbackHandler();
    const after = step('after', 'tool', (text: string) => text.length);
    await pipeline(
      'support',
      async (run) => {
        const reply = await runStep('answer', 'agent', async () => {
          const text = await qaChain().invoke({ question: 'tides?' }, { callbacks: [handler] });
          return after(text);
        });
        run.verdict(reply > 0, { detail: 'non-empty reply' });
        return reply;
      },
      { entry: null },
    );

    const detail = onlyImportedRun();
    expect(detail.run).toMatchObject({ pipeline: 'support', status: 'ok', verdict: { pass: true, detail: 'non-empty reply' } });
    expect(detail.steps.map((s) => [s.index, s.name, s.type, s.replay_key])).toEqual([
      [0, 'answer', 'agent', 'answer#0'],
      [1, 'RunnableSequence', 'generic', 'answer#0/RunnableSequence#0'],
      [2, 'ChatPromptTemplate', 'prompt', 'answer#0/RunnableSequence#0/ChatPromptTemplate#0'],
      [3, 'FakeListChatModel', 'llm', 'answer#0/RunnableSequence#0/FakeListChatModel#0'],
      [4, 'StrOutputParser', 'generic', 'answer#0/RunnableSequence#0/StrOutputParser#0'],
      [5, 'after', 'tool', 'answer#0/after#0'],
    ]);
    const [answer, sequence, prompt] = detail.steps;
    expect(sequence.parent_id).toBe(answer.step_id);
    expect(prompt.parent_id).toBe(sequence.step_id);
    expect(sequence).toMatchObject({ status: 'ok', input: { question: 'tides?' }, output: 'The moon pulls the sea.' });
    expect(handler.lastRunId).toBe(detail.run.run_id);
  });

  it('two SDK pipelines running at once keep their LangChain steps in their own runs', async () => {
    const handler = new TracebackCallbackHandler();
    const chain = RunnableSequence.from([
      RunnableLambda.from(async (q: string) => {
        await new Promise((r) => setImmediate(r));
        return q.toUpperCase();
      }).withConfig({ runName: 'shout' }),
      new FakeChatModel({}),
    ]);
    await Promise.all(['one', 'two'].map((q) => pipeline('p', () => chain.invoke(q, { callbacks: [handler] }), { input: q, entry: null })));

    const runs = importedRuns();
    expect(runs).toHaveLength(2);
    for (const { run, steps } of runs) {
      const q = run.input as string;
      expect(steps.map((s) => s.replay_key)).toEqual(['RunnableSequence#0', 'RunnableSequence#0/shout#0', 'RunnableSequence#0/FakeChatModel#0']);
      expect(steps[1].output).toBe(q.toUpperCase());
      expect(steps[2].input).toEqual({ messages: [{ role: 'user', content: q.toUpperCase() }] });
    }
  });

  it('a streamed chain records the whole model reply, and the input its parser received while streaming', async () => {
    const handler = new TracebackCallbackHandler();
    let streamed = '';
    for await (const chunk of await qaChain().stream({ question: 'tides?' }, { callbacks: [handler] })) streamed += chunk;
    expect(streamed).toBe('The moon pulls the sea.');

    const detail = onlyImportedRun();
    expect(detail.run.output).toBe('The moon pulls the sea.');
    expect(byName(detail, 'FakeListChatModel').output).toBe('The moon pulls the sea.');
    expect(byName(detail, 'StrOutputParser').metadata.streamed_input).toEqual({ role: 'assistant', content: 'The moon pulls the sea.' });
  });

  it('a verdict given after the LangChain run ended still reaches that run', async () => {
    const handler = new TracebackCallbackHandler();
    const answer = await qaChain().invoke({ question: 'tides?' }, { callbacks: [handler] });
    handler.verdict(answer.includes('moon'), { detail: 'mentions the moon', expected: 'moon' });

    expect(onlyImportedRun().run.verdict).toEqual({ pass: true, detail: 'mentions the moon', expected: 'moon' });
  });

  it('secrets in LangChain inputs are redacted before they reach the disk, and enabled: false records nothing', async () => {
    const key = 'sk-ant-' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4';
    await qaChain().invoke({ question: `my key is ${key}` }, { callbacks: [new TracebackCallbackHandler()] });
    const text = readFileSync(runFiles(home)[0], 'utf8');
    expect(text).not.toContain(key);
    expect(text).toContain('[REDACTED]');

    const quietHome = tempHome();
    await qaChain().invoke({ question: 'tides?' }, { callbacks: [new TracebackCallbackHandler({ home: quietHome, enabled: false })] });
    expect(() => runFiles(quietHome)).toThrow();
  });
});
