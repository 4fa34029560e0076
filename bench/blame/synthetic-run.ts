/**
 * Synthetic large runs for the timing benchmark: an agent loop of LLM call →
 * tool call pairs with distinct ids and values, a retrieval every 25 steps,
 * and near the end a tool that returns an error payload which the final
 * answer repeats, under a failing verdict, so that every blame stage
 * (scoring, recoveries, lineage, all rules, ranking) runs.
 */
import type { RunDetail, Step } from '../../src-shared/model';
import type { Json, StepType } from '../../src-shared/trace-format';

export function syntheticRun(n: number): RunDetail {
  const runId = `synthetic-${n}`;
  const t0 = 1_700_000_000_000;
  const steps: Step[] = [];
  const mk = (name: string, type: StepType, parent: string | null, input: Json, output: Json, extra: Partial<Step> = {}): Step => {
    const i = steps.length;
    const s: Step = {
      run_id: runId,
      step_id: `s${i}`,
      parent_id: parent,
      index: i,
      name,
      type,
      replay_key: `${parent ? 'agent#0/' : ''}${name}#${i}`,
      status: 'ok',
      input,
      output,
      error: null,
      started_at: t0 + i * 2,
      ended_at: t0 + i * 2 + 1,
      duration_ms: 1,
      model: type === 'llm' ? 'gpt-4o-mini' : null,
      usage: null,
      metadata: {},
      user_scores: [],
      replayed: false,
      extra: {},
      ...extra,
    };
    steps.push(s);
    return s;
  };
  const root = mk('agent', 'agent', null, { task: 'reconcile the order book for account AC-7781' }, null);
  let k = 0;
  while (steps.length < n - 3) {
    if (k % 12 === 0) {
      mk('search_docs', 'retrieval', root.step_id, { query: `reconciliation rules for region ${k}` }, [
        { text: `Reconciliation rule ${k}: orders from region ${k} settle within ${k % 30} days.` },
        { text: `Region ${k} uses the ledger code LG-${1000 + k}.` },
      ]);
    } else {
      const id = `ORD-${100000 + k}`;
      mk('agent_llm', 'llm', root.step_id, { messages: [{ role: 'user', content: `Check order ${id} (step ${k}) against ledger LG-${1000 + (k % 97)}.` }] }, {
        content: '',
        tool_calls: [{ id: `call_${k}`, type: 'function', function: { name: 'get_order', arguments: `{"order_id": "${id}"}` } }],
      });
      mk('get_order', 'tool', root.step_id, { order_id: id }, { order_id: id, status: k % 5 === 0 ? 'pending' : 'settled', total: Number((k * 3.5).toFixed(2)) }, { metadata: { tool_call_id: `call_${k}` } });
    }
    k++;
  }
  mk('get_balance', 'tool', root.step_id, { account: 'AC-7781' }, { error: 'ledger service unavailable' });
  const answer = 'The order book for AC-7781 could not be reconciled: ledger service unavailable.';
  mk('agent_llm', 'llm', root.step_id, { messages: [{ role: 'user', content: 'Summarize: get_balance returned {"error": "ledger service unavailable"}' }] }, answer);
  root.output = answer;
  root.ended_at = t0 + steps.length * 2 + 5;
  return {
    run: {
      run_id: runId,
      pipeline: 'synthetic',
      status: 'ok',
      steps: steps.length,
      started_at: t0,
      duration_ms: steps.length * 2 + 5,
      verdict: { pass: false, detail: 'balance missing' },
      source_format: 'native',
      forked: false,
      ended_at: t0 + steps.length * 2 + 5,
      input: { task: 'reconcile the order book for account AC-7781' },
      output: answer,
      error: null,
      tags: {},
      entry: null,
      provenance: null,
      sdk: null,
      source_file: null,
      user_scores: [],
      extra: {},
    },
    steps,
  };
}
