/**
 * A LangGraph-shaped run as LangChain's run collector writes it (run trees
 * with child_runs, epoch-ms times), big enough to test the graph and the
 * waterfall on what real LangGraph runs look like: the graph's own wrapper
 * runs (`__start__`, `ChannelWrite<…>`, `Branch<…>`, `RunnableSequence`,
 * `RunnableLambda`) around every node, an agent ⇄ tools loop, tools called
 * in parallel, and a final tool call that times out.
 */
import fs from 'node:fs';
import path from 'node:path';

type LcRun = {
  id: string;
  name: string;
  run_type: string;
  start_time: number;
  end_time: number;
  inputs: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  error?: string;
  child_runs: LcRun[];
  trace_id: string;
};

export interface LangGraphRun {
  file: string;
  /** Steps the importer will create (one per run tree node). */
  steps: number;
  rootName: string;
  /** The text of the tool error, as a user would copy it from the step panel. */
  errorText: string;
}

export function writeLangGraphRun(dir: string, loops = 6): LangGraphRun {
  let seq = 0;
  const trace = '0190aaaa-0000-7000-8000-000000000000';
  const id = () => `0190aaaa-0000-7000-8000-${String(++seq).padStart(12, '0')}`;
  let count = 0;
  const run = (name: string, run_type: string, start: number, end: number, extra: Partial<LcRun> = {}): LcRun => {
    count++;
    return { id: id(), name, run_type, start_time: start, end_time: end, inputs: {}, outputs: {}, child_runs: [], trace_id: trace, ...extra };
  };
  const t0 = 1_800_000_000_000;
  const errorText = 'Tool weather_api timed out after 5000 ms (UpstreamTimeout)';
  const root = run('support_agent', 'chain', t0, 0, { inputs: { question: 'Where is order 7 and will the weather delay it?' } });
  let t = t0 + 5;
  const start = run('__start__', 'chain', t, t + 3);
  start.child_runs.push(run('ChannelWrite<...>', 'chain', t + 1, t + 2), run('ChannelWrite<branch:to:retrieve>', 'chain', t + 2, t + 3));
  root.child_runs.push(start);
  t += 5;
  const retrieve = run('retrieve', 'chain', t, t + 40);
  retrieve.child_runs.push(
    run('KnowledgeBaseRetriever', 'retriever', t + 2, t + 30, { inputs: { query: 'order 7 shipping' }, outputs: { documents: [{ pageContent: 'Order 7 ships from the Lyon depot.' }] } }),
    run('ChannelWrite<branch:to:agent>', 'chain', t + 31, t + 33),
  );
  root.child_runs.push(retrieve);
  t += 45;
  for (let i = 0; i < loops; i++) {
    const agent = run('agent', 'chain', t, t + 220);
    const seqRun = run('RunnableSequence', 'chain', t + 2, t + 210);
    seqRun.child_runs.push(
      run('RunnableLambda', 'chain', t + 3, t + 6),
      run('ChatOpenAI', 'llm', t + 8, t + 200, {
        inputs: { messages: [[{ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'HumanMessage'], kwargs: { content: `step ${i}: check order 7` } }]] },
        outputs: { generations: [[{ text: `Calling tools for round ${i}` }]], llmOutput: { tokenUsage: { promptTokens: 120 + i, completionTokens: 30, totalTokens: 150 + i } } },
      }),
    );
    agent.child_runs.push(seqRun, run('ChannelWrite<...>', 'chain', t + 211, t + 212), run('Branch<agent,tools,__end__>', 'chain', t + 213, t + 215));
    root.child_runs.push(agent);
    t += 225;
    const last = i === loops - 1;
    const tools = run('tools', 'chain', t, t + (last ? 5020 : 160));
    // Two tools run in parallel (overlapping times).
    tools.child_runs.push(
      run('lookup_order', 'tool', t + 2, t + 120, { inputs: { input: 'order 7' }, outputs: { output: 'Order 7: in transit, Lyon depot' } }),
      last
        ? run('weather_api', 'tool', t + 3, t + 5003, { inputs: { input: 'Lyon' }, error: `${errorText}\n\nError: ${errorText}\n    at weather_api (tools.js:1:1)` })
        : run('weather_api', 'tool', t + 3, t + 90, { inputs: { input: 'Lyon' }, outputs: { output: `Lyon: light rain (${i})` } }),
      run('ChannelWrite<branch:to:agent>', 'chain', t + (last ? 5010 : 150), t + (last ? 5012 : 152)),
    );
    root.child_runs.push(tools);
    t += last ? 5025 : 165;
  }
  const answer = run('agent', 'chain', t, t + 180);
  answer.child_runs.push(
    run('ChatOpenAI', 'llm', t + 5, t + 170, { outputs: { generations: [[{ text: 'Order 7 is in transit; the weather is unknown.' }]] } }),
    run('Branch<agent,tools,__end__>', 'chain', t + 172, t + 175),
  );
  root.child_runs.push(answer);
  t += 185;
  root.end_time = t;
  root.outputs = { answer: 'Order 7 is in transit; the weather is unknown.' };
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'langgraph-support-agent.json');
  fs.writeFileSync(file, JSON.stringify([root], null, 1));
  return { file, steps: count, rootName: root.name, errorText };
}
