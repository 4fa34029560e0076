/**
 * Scenarios, part 2: lineage, recovered errors, multi-agent, long loops,
 * orphaned spans, duplicates, expected answers and across-runs spectra.
 */
import type { Json } from '../../src-shared/trace-format';
import { TraceBuilder } from '../../test/support/trace-builder';
import { NOISE, TOPICS, add, chat, promptText, ragRun, tags, toolCall } from './scenario-kit';

const T = TOPICS;

// ───────────────────────── lineage ─────────────────────────
add('lineage', 'wrong-argument-date', () => {
  const q = 'How many sales did we make on 2024-03-15?';
  const b = new TraceBuilder({ runId: 'lin-wrongarg-date', pipeline: 'sales-analyst', input: { question: q }, tags: tags('plan_query', 'lineage', 'wrong-argument') });
  b.step('plan_query', 'llm', { input: chat(`Turn into a query spec: ${q}`), output: '{"metric": "sales_count", "date": "2023-03-15"}' });
  b.step('sales_db', 'tool', { input: { metric: 'sales_count', date: '2023-03-15' }, output: { count: 42 } });
  b.step('answer', 'llm', { input: chat(`${q}\nData: sales_count on 2023-03-15 = 42`), output: 'We made 42 sales on 2023-03-15.' });
  b.verdict(false, 'there were 57 sales on 2024-03-15');
  return b.finish('ok', 'We made 42 sales on 2023-03-15.');
});
add('lineage', 'wrong-argument-city', () => {
  const q = "What's the weather in Portland tomorrow?";
  const b = new TraceBuilder({ runId: 'lin-wrongarg-city', pipeline: 'weather-agent', input: { question: q }, tags: tags('agent#0/agent_llm#0', 'lineage', 'wrong-argument') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_p1', 'get_forecast', { city: 'Portsmouth', day: 'tomorrow' }) });
  b.step('get_forecast', 'tool', { parent: a, input: { city: 'Portsmouth', day: 'tomorrow' }, metadata: { tool_call_id: 'call_p1' }, output: { summary: 'Rain', high_c: 12, low_c: 7 } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nTool result (call_p1): Rain, high 12, low 7`), output: 'Tomorrow expect rain with a high of 12 °C and a low of 7 °C.' });
  b.end(a, { output: 'Tomorrow expect rain with a high of 12 °C and a low of 7 °C.' });
  b.verdict(false, 'forecast is for the wrong city');
  return b.finish('ok', 'Tomorrow expect rain with a high of 12 °C and a low of 7 °C.');
});
add('lineage', 'dropped-context-insulin', () =>
  ragRun({
    runId: 'lin-dropped-insulin',
    tags: tags('build_prompt', 'lineage', 'dropped-context'),
    question: T.insulin.question,
    passages: [T.insulin.relevant[0], NOISE[4]],
    promptOutput: `You are a careful assistant. Answer the question.\n\nQuestion: ${T.insulin.question}\nAnswer:`,
    answer: T.insulin.wrong,
    verdict: { pass: false, detail: 'insulin, not glucagon' },
  }),
);
add('lineage', 'dropped-context-budget-cut', () =>
  ragRun({
    runId: 'lin-dropped-budget',
    tags: tags('format_context', 'lineage', 'dropped-context'),
    names: { prompt: 'format_context' },
    question: T.refund.question,
    passages: [NOISE[6], NOISE[9], T.refund.relevant[0]],
    promptOutput: promptText(T.refund.question, [NOISE[6], NOISE[9]]),
    answer: T.refund.wrong,
    verdict: { pass: false, detail: 'the policy says 30 days' },
  }),
);
function rerankRun(runId: string, rerankName: string, inputKey: string, topic: { question: string; relevant: string[]; wrong: string }, noise: string[]): TraceBuilder {
  const b = new TraceBuilder({ runId, pipeline: `rerank-${runId}`, input: { question: topic.question }, tags: tags(rerankName, 'lineage', 'lossy-reranking') });
  const docs = [noise[0], topic.relevant[0], noise[1], noise[2]];
  b.step('retrieve', 'retrieval', { input: { query: topic.question, top_k: 4 }, output: docs.map((text, i) => ({ id: `d${i}`, text })) });
  const kept = [noise[0], noise[2]];
  b.step(rerankName, 'retrieval', { input: { query: topic.question, [inputKey]: docs.map((text, i) => ({ id: `d${i}`, text })) }, output: { documents: kept.map((text) => ({ text })) } });
  const prompt = promptText(topic.question, kept);
  b.step('build_prompt', 'prompt', { input: { question: topic.question, passages: kept }, output: prompt });
  b.step('answer', 'llm', { input: chat(prompt), output: topic.wrong });
  b.verdict(false, 'wrong answer');
  return b.finish('ok', topic.wrong);
}
add('lineage', 'lossy-rerank-acme', () => rerankRun('lin-rerank-acme', 'rerank', 'documents', T.acme, [NOISE[1], NOISE[3], NOISE[7]]));
add('lineage', 'lossy-rerank-everest', () => rerankRun('lin-rerank-everest', 'cross_encoder_rerank', 'candidates', T.everest, [NOISE[0], NOISE[5], NOISE[9]]));
add('lineage', 'bad-plan-countries', () => {
  const q = 'Compare the Q3 2024 revenue of Germany and France.';
  const b = new TraceBuilder({ runId: 'lin-badplan-countries', pipeline: 'bi-agent', input: { question: q }, tags: tags('planner', 'lineage', 'bad-plan') });
  b.step('planner', 'llm', { input: chat(`Plan the lookups needed for: ${q}`), output: '{"lookups": [{"tool": "revenue_db", "country": "Germany", "period": "2024-Q3"}]}' });
  b.step('revenue_db', 'tool', { input: { country: 'Germany', period: '2024-Q3' }, output: { country: 'Germany', revenue_eur: 18400000 } });
  b.step('answer', 'llm', { input: chat(`${q}\nData: Germany 2024-Q3 revenue 18400000 EUR`), output: 'Germany had 18.4 million EUR of revenue in Q3 2024.' });
  b.verdict(false, 'France is missing from the comparison');
  return b.finish('ok', 'Germany had 18.4 million EUR of revenue in Q3 2024.');
});
add('lineage', 'bad-plan-customers', () => {
  const q = 'List the open tickets for customers ACME-1042 and ACME-2217.';
  const b = new TraceBuilder({ runId: 'lin-badplan-customers', pipeline: 'helpdesk-agent', input: { question: q }, tags: tags('make_plan', 'lineage', 'bad-plan') });
  const a = b.start('helpdesk', 'agent', { input: { question: q } });
  b.step('make_plan', 'llm', { parent: a, input: chat(`Plan: ${q}`), output: 'Step 1: call list_tickets for customer ACME-1042 with status open. Step 2: summarise.' });
  b.step('list_tickets', 'tool', { parent: a, input: { customer: 'ACME-1042', status: 'open' }, output: [{ id: 'T-5501', title: 'Printer offline' }] });
  b.step('summarise', 'llm', { parent: a, input: chat('Tickets: T-5501 Printer offline (ACME-1042)'), output: 'Open tickets: T-5501 (Printer offline).' });
  b.end(a, { output: 'Open tickets: T-5501 (Printer offline).' });
  b.verdict(false, 'tickets of ACME-2217 are missing');
  return b.finish('ok', 'Open tickets: T-5501 (Printer offline).');
});
add('lineage', 'fabricated-headcount', () =>
  ragRun({
    runId: 'lin-fabricated-acme',
    tags: tags('answer', 'lineage', 'fabricated-value'),
    question: T.acme.question,
    passages: [T.acme.relevant[0], NOISE[3]],
    answer: 'Acme Robotics is headquartered in Toledo, Ohio, employs 3,400 people and was founded in 1987.',
    verdict: { pass: false, detail: 'headcount is wrong' },
  }),
);
add('lineage', 'fabricated-invoice', () => {
  const q = 'What is the total of invoice INV-2291 and when is it due?';
  const b = new TraceBuilder({ runId: 'lin-fabricated-invoice', pipeline: 'billing-agent', input: { question: q }, tags: tags('agent#0/agent_llm#1', 'lineage', 'fabricated-value') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_i1', 'get_invoice', { invoice_id: 'INV-2291' }) });
  b.step('get_invoice', 'tool', { parent: a, input: { invoice_id: 'INV-2291' }, metadata: { tool_call_id: 'call_i1' }, output: { invoice_id: 'INV-2291', total: 480, currency: 'USD', due: '2024-07-01' } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nTool result (call_i1): {"invoice_id": "INV-2291", "total": 480, "currency": "USD", "due": "2024-07-01"}`), output: 'Invoice INV-2291 totals $512.40 and is due on 2024-07-15.' });
  b.end(a, { output: 'Invoice INV-2291 totals $512.40 and is due on 2024-07-15.' });
  b.verdict(false, 'total and due date are wrong');
  return b.finish('ok', 'Invoice INV-2291 totals $512.40 and is due on 2024-07-15.');
});

// A plan (or generated query) with a wrong field that a tool executed
// faithfully: the wrong content first appears in the tool's result, but the
// step that wrote the arguments is the cause. The last one is the control:
// right arguments, wrong data, so the tool is to blame.
add('lineage', 'faithful-executor-metro-column', () => {
  const q = 'Which cities in Corvia have a population over 500,000?';
  const b = new TraceBuilder({ runId: 'lin-faithful-metro', pipeline: 'city-research', input: { question: q }, tags: tags('planner', 'lineage', 'bad-plan-faithful-tool') });
  const plan = { country: 'Corvia', column: 'metro_population', op: '>', threshold: 500000 };
  b.step('planner', 'llm', { input: chat(`Turn into one table filter: ${q}`), output: plan });
  const a = b.start('researcher', 'agent', { input: plan });
  const rows = [
    { city: 'Estrel', population: 910000, metro_population: 1400000 },
    { city: 'Marrow Bay', population: 530000, metro_population: 820000 },
    { city: 'Tollis', population: 310000, metro_population: 640000 },
  ];
  b.step('query_table', 'tool', { parent: a, input: plan, output: rows });
  b.step('summarize_findings', 'llm', { parent: a, input: { plan, rows }, output: rows.map((r) => r.city) });
  b.end(a, { output: { cities: rows.map((r) => r.city) } });
  const answer = 'Cities in Corvia over 500,000 people: Estrel, Marrow Bay and Tollis.';
  b.step('writer', 'llm', { input: chat(`${q}\nFindings: Estrel, Marrow Bay, Tollis`), output: answer });
  b.verdict(false, 'wrongly includes Tollis', ['Estrel', 'Marrow Bay']);
  return b.finish('ok', answer);
});
add('lineage', 'faithful-executor-sql-filter', () => {
  const q = 'Which customers in Canada spent more than $5,000 in 2023?';
  const b = new TraceBuilder({ runId: 'lin-faithful-sql', pipeline: 'crm-analyst', input: { question: q }, tags: tags('write_sql', 'lineage', 'bad-plan-faithful-tool') });
  const sql = "SELECT name FROM customers WHERE country = 'Canada' AND lifetime_spend > 5000";
  b.step('write_sql', 'llm', { input: chat(`Write one SQL query for: ${q}`), output: sql, model: 'gpt-4o-mini' });
  const rows = [{ name: 'Hollis Grant' }, { name: 'Marta Okafor' }, { name: 'Devon Price' }];
  b.step('run_sql', 'tool', { input: { sql }, output: { rows } });
  const answer = 'Three customers in Canada spent more than $5,000 in 2023: Hollis Grant, Marta Okafor and Devon Price.';
  b.step('answer', 'llm', { input: chat(`${q}\nRows: Hollis Grant; Marta Okafor; Devon Price`), output: answer });
  b.verdict(false, 'Devon Price should not be listed: he spent $1,200 in 2023');
  return b.finish('ok', answer);
});
add('lineage', 'faithful-executor-date-range', () => {
  const q = 'How many support tickets were opened in March 2024?';
  const b = new TraceBuilder({ runId: 'lin-faithful-dates', pipeline: 'support-analytics', input: { question: q }, tags: tags('plan_query', 'lineage', 'bad-plan-faithful-tool') });
  const a = b.start('analyst', 'agent', { input: { question: q } });
  b.step('plan_query', 'llm', { parent: a, input: chat(q), output: toolCall('call_t1', 'ticket_count', { opened_from: '2024-03-01', opened_to: '2024-04-30' }) });
  b.step('ticket_count', 'tool', { parent: a, input: { opened_from: '2024-03-01', opened_to: '2024-04-30' }, metadata: { tool_call_id: 'call_t1' }, output: { count: 412 } });
  const answer = '412 support tickets were opened in March 2024.';
  b.step('plan_query', 'llm', { parent: a, input: chat(`${q}\nTool result (call_t1): {"count": 412}`), output: answer });
  b.end(a, { output: answer });
  b.verdict(false, '412 is wrong: 198 tickets were opened in March 2024');
  return b.finish('ok', answer);
});
add('lineage', 'wrong-result-right-arguments', () => {
  const q = 'What is the list price of the X200 vacuum cleaner?';
  const b = new TraceBuilder({ runId: 'lin-wrong-result', pipeline: 'price-bot', input: { question: q }, tags: tags('price_lookup', 'lineage', 'wrong-data-right-arguments') });
  b.step('price_lookup', 'tool', { input: { product: 'X200 vacuum cleaner' }, output: { product: 'X200 vacuum cleaner', list_price_usd: 349 } });
  const answer = 'The X200 vacuum cleaner lists at $349.';
  b.step('answer', 'llm', { input: chat(`${q}\nPrice: 349 USD`), output: answer });
  b.verdict(false, '$349 is the old price; the list price is $299 since May');
  return b.finish('ok', answer);
});

// ───────────────────────── recovered ─────────────────────────
add('recovered', 'retry-then-refusal', () => {
  const q = T.photosynthesis.question;
  const b = new TraceBuilder({ runId: 'rec-retry-refusal', pipeline: 'bio-agent', input: { question: q }, tags: tags('draft_answer', 'recovered', 'recovered-plus-real-cause') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('search_api', 'tool', { parent: a, input: { q: 'photosynthesis products' }, error: { type: 'HTTPError', message: '503 Service Unavailable', status: 503 } });
  b.step('search_api', 'tool', { parent: a, input: { q: 'photosynthesis products' }, output: [{ text: T.photosynthesis.relevant[0] }] });
  b.step('draft_answer', 'llm', { parent: a, input: chat(promptText(q, T.photosynthesis.relevant)), output: "I'm sorry, but I can't answer that." });
  b.end(a, { output: "I'm sorry, but I can't answer that." });
  b.verdict(false, 'refused');
  return b.finish('ok', "I'm sorry, but I can't answer that.");
});
add('recovered', 'fallback-then-fabrication', () => {
  const q = T.light.question;
  const b = new TraceBuilder({ runId: 'rec-fallback-fabricated', pipeline: 'physics-bot', input: { question: q }, tags: tags('compose', 'recovered', 'recovered-plus-real-cause') });
  b.step('primary_kb', 'retrieval', { input: { query: q }, error: { type: 'ConnectionError', message: 'Connection refused' } });
  b.step('backup_kb', 'retrieval', { input: { query: q }, output: [{ text: T.light.relevant[0] }] });
  b.step('compose', 'llm', { input: chat(promptText(q, T.light.relevant)), output: 'Light travels at 186,000 kilometres per second.' });
  b.verdict(false, 'wrong speed');
  return b.finish('ok', 'Light travels at 186,000 kilometres per second.');
});
add('recovered', 'retry-healthy', () => {
  const q = T.france.question;
  const b = new TraceBuilder({ runId: 'rec-retry-healthy', pipeline: 'geo-qa', input: { question: q }, tags: tags('', 'recovered', 'healthy-after-retry') });
  b.step('retrieve', 'retrieval', { input: { query: q }, error: { type: 'TimeoutError', message: 'search timed out after 5s' } });
  b.step('retrieve', 'retrieval', { input: { query: q }, output: [{ text: T.france.relevant[0] }] });
  b.step('answer', 'llm', { input: chat(promptText(q, T.france.relevant)), output: 'Paris.' });
  b.verdict(true);
  return b.finish('ok', 'Paris.');
});
add('recovered', 'caught-enrichment-healthy', () => {
  const b = new TraceBuilder({ runId: 'rec-caught-healthy', pipeline: 'profile-card', input: { user_id: 'u-5512' }, tags: tags('', 'recovered', 'healthy-caught-error') });
  const a = b.start('build_card', 'agent', { input: { user_id: 'u-5512' } });
  b.step('get_user', 'tool', { parent: a, input: { user_id: 'u-5512' }, output: { name: 'Dana Whitfield', plan: 'Team', joined: '2021-04-02' } });
  b.step('get_avatar', 'tool', { parent: a, input: { user_id: 'u-5512' }, error: { type: 'HTTPError', message: '500 Internal Server Error', status: 500 } });
  b.step('render', 'llm', { parent: a, input: chat('Write a one-line profile: Dana Whitfield, Team plan, joined 2021-04-02'), output: 'Dana Whitfield has been on the Team plan since 2021-04-02.' });
  b.end(a, { output: 'Dana Whitfield has been on the Team plan since 2021-04-02.' });
  return b.finish('ok', 'Dana Whitfield has been on the Team plan since 2021-04-02.');
});
add('recovered', 'llm-retry-healthy', () => {
  const q = T.boiling.question;
  const b = new TraceBuilder({ runId: 'rec-llm-retry', pipeline: 'science-qa', input: { question: q }, tags: tags('', 'recovered', 'healthy-after-retry') });
  b.step('answer', 'llm', { input: chat(q), error: { type: 'OverloadedError', message: 'Overloaded', status: 529 } });
  b.step('answer', 'llm', { input: chat(q), output: T.boiling.answer });
  return b.finish('ok', T.boiling.answer);
});

// ───────────────────────── multi-agent ─────────────────────────
function crew(runId: string, expected: string, kind: string, opts: { search?: Json; searchError?: { type: string; message: string; status?: number }; notes?: string; handoff?: Json; report?: string; writerInput?: string; verdict?: { pass: boolean; detail?: string; expected?: Json } }): TraceBuilder {
  const topic = 'the Aurora X1 electric bicycle';
  const b = new TraceBuilder({ runId, pipeline: `crew-${runId}`, input: { topic }, tags: tags(expected, 'multi-agent', kind) });
  const sup = b.start('supervisor', 'agent', { input: { topic } });
  const r = b.start('researcher', 'agent', { parent: sup, input: { topic } });
  if (opts.searchError) {
    b.step('web_search', 'tool', { parent: r, input: { q: 'Aurora X1 electric bicycle launch' }, error: opts.searchError });
    b.end(r, { error: { type: 'WorkerError', message: 'research failed' } });
    b.end(sup, { error: { type: 'CrewError', message: 'researcher failed' } });
    return b.finish('error', undefined, { type: 'CrewError', message: 'researcher failed' });
  }
  b.step('web_search', 'retrieval', { parent: r, input: { query: 'Aurora X1 electric bicycle launch' }, output: opts.search ?? [] });
  const notes = opts.notes ?? '';
  b.step('take_notes', 'llm', { parent: r, input: chat(`Take notes on ${topic} from: ${JSON.stringify(opts.search ?? [])}`), output: notes });
  b.end(r, { output: notes });
  const handoff = opts.handoff ?? { task: `Write a short report on ${topic}`, notes };
  b.step('handoff_to_writer', 'generic', { parent: sup, input: { notes, task: `Write a short report on ${topic}` }, output: handoff });
  const w = b.start('writer', 'agent', { parent: sup, input: handoff });
  const report = opts.report ?? '';
  b.step('write_report', 'llm', { parent: w, input: chat(opts.writerInput ?? `Write a short report. Input: ${JSON.stringify(handoff)}`), output: report });
  b.end(w, { output: report });
  b.end(sup, { output: report });
  if (opts.verdict) b.verdict(opts.verdict.pass, opts.verdict.detail, opts.verdict.expected);
  return b.finish('ok', report);
}
const AURORA = [
  { text: 'The Aurora X1 electric bicycle launched in 2019 with a 500 Wh battery and a range of 80 km.' },
  { text: 'Aurora Bikes is based in Utrecht and sells the X1 electric bicycle in twelve countries.' },
];
add('multi-agent', 'worker-tool-error', () => crew('ma-worker-error', 'web_search', 'worker-failure', { searchError: { type: 'HTTPError', message: '502 Bad Gateway', status: 502 } }));
add('multi-agent', 'handoff-drops-notes', () =>
  crew('ma-handoff-drop', 'handoff_to_writer', 'handoff-lost-context', {
    search: AURORA,
    notes: 'Aurora X1: launched in 2019; 500 Wh battery; 80 km range; made by Aurora Bikes of Utrecht.',
    handoff: { task: 'Write a short report on the Aurora X1 electric bicycle' },
    report: 'The Aurora X1 is an electric bicycle that launched in 2021 and is popular with commuters.',
    verdict: { pass: false, detail: 'launch year is wrong', expected: 'launched in 2019' },
  }),
);
add('multi-agent', 'researcher-irrelevant', () =>
  crew('ma-researcher-irrelevant', 'web_search', 'worker-bad-data', {
    search: [{ text: NOISE[6] }, { text: NOISE[7] }],
    notes: 'No useful sources found; the results discuss coral reefs and Saturn.',
    report: 'The Aurora X1 is a lightweight folding bicycle without a motor.',
    verdict: { pass: false, detail: 'the X1 is an electric bicycle' },
  }),
);
add('multi-agent', 'writer-refusal', () =>
  crew('ma-writer-refusal', 'write_report', 'worker-refusal', {
    search: AURORA,
    notes: 'Aurora X1: launched in 2019; 500 Wh battery; 80 km range.',
    report: 'I cannot help with writing reports about commercial products.',
  }),
);
add('multi-agent', 'crew-healthy', () =>
  crew('ma-healthy', '', 'healthy', {
    search: AURORA,
    notes: 'Aurora X1: launched in 2019; 500 Wh battery; 80 km range; made by Aurora Bikes of Utrecht.',
    report: 'The Aurora X1, launched in 2019 by Aurora Bikes of Utrecht, has a 500 Wh battery and an 80 km range.',
    verdict: { pass: true },
  }),
);

// ───────────────────────── long loops ─────────────────────────
add('loops', 'rate-limited-loop', () => {
  const q = 'Find recent papers on graph neural networks for drug discovery';
  const b = new TraceBuilder({ runId: 'loop-rate-limited', pipeline: 'paper-agent', input: { question: q }, tags: tags('agent#0/search#0', 'loops', 'error-payload-loop') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  for (let i = 0; i < 60; i++) {
    b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\n(attempt ${i + 1})${i > 0 ? '\nLast tool result: {"error": "rate limit exceeded"}' : ''}`), output: toolCall(`call_${i}`, 'search', { query: 'graph neural networks drug discovery' }) });
    b.step('search', 'tool', { parent: a, input: { query: 'graph neural networks drug discovery' }, metadata: { tool_call_id: `call_${i}` }, output: { error: 'rate limit exceeded' } });
  }
  b.end(a, { error: { type: 'AgentError', message: 'Agent stopped: max iterations (60) reached' } });
  return b.finish('error', undefined, { type: 'AgentError', message: 'Agent stopped: max iterations (60) reached' });
});
add('loops', 'batch-item-failure', () => {
  const items = Array.from({ length: 150 }, (_, i) => `SKU-${String(10000 + i * 7)}`);
  items[97] = 'SKU--97';
  const b = new TraceBuilder({ runId: 'loop-batch-item', pipeline: 'catalog-sync', input: { skus: items }, tags: tags('batch#0/process_item#97', 'loops', 'one-bad-item') });
  const root = b.start('batch', 'generic', { input: { count: items.length } });
  for (let i = 0; i < items.length; i++) {
    if (i === 97) {
      b.step('process_item', 'tool', { parent: root, input: { sku: items[i] }, error: { type: 'ValueError', message: "invalid SKU format: 'SKU--97'" } });
      break;
    }
    b.step('process_item', 'tool', { parent: root, input: { sku: items[i] }, output: { sku: items[i], synced: true } });
  }
  b.end(root, { error: { type: 'BatchError', message: 'batch aborted at item 98' } });
  return b.finish('error', undefined, { type: 'BatchError', message: 'batch aborted at item 98' });
});
add('loops', 'no-progress-search', () => {
  const q = T.password.question;
  const b = new TraceBuilder({ runId: 'loop-no-progress', pipeline: 'help-agent', input: { question: q }, tags: tags('agent#0/agent_llm#1', 'loops', 'no-progress') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  let history = q;
  for (let i = 0; i < 35; i++) {
    b.step('agent_llm', 'llm', { parent: a, input: chat(history), output: toolCall(`call_${i}`, 'search_docs', { query: 'reset password' }) });
    b.step('search_docs', 'tool', { parent: a, input: { query: 'reset password' }, metadata: { tool_call_id: `call_${i}` }, output: [{ text: T.password.relevant[0] }] });
    if (i === 0) history = `${q}\nTool result: ${T.password.relevant[0]}`;
  }
  b.end(a, { error: { type: 'AgentError', message: 'Recursion limit of 70 reached without hitting a stop condition' } });
  return b.finish('error', undefined, { type: 'AgentError', message: 'Recursion limit of 70 reached' });
});
add('loops', 'long-healthy', () => {
  const b = new TraceBuilder({ runId: 'loop-long-healthy', pipeline: 'translate-batch', input: { sentences: 60 }, tags: tags('', 'loops', 'healthy-long') });
  const root = b.start('translate_all', 'agent', { input: { sentences: 60 } });
  for (let i = 0; i < 60; i++) {
    const src = `Sentence number ${i + 10} about the weather in town ${i + 100}.`;
    b.step('fetch_sentence', 'tool', { parent: root, input: { n: i + 10 }, output: src });
    b.step('translate', 'llm', { parent: root, input: chat(`Translate to German: ${src}`), output: `Satz Nummer ${i + 10} über das Wetter in der Stadt ${i + 100}.` });
  }
  b.end(root, { output: 'translated 60 sentences' });
  b.verdict(true);
  return b.finish('ok', 'translated 60 sentences');
});
add('loops', 'long-then-truncated', () => {
  const b = new TraceBuilder({ runId: 'loop-long-truncated', pipeline: 'log-digest', input: { files: 110 }, tags: tags('summarize', 'loops', 'long-then-fault') });
  const root = b.start('digest', 'agent', { input: { files: 110 } });
  for (let i = 0; i < 110; i++) b.step('read_log', 'tool', { parent: root, input: { file: `app-${1000 + i}.log` }, output: `app-${1000 + i}.log: ${i % 7} warnings, 0 errors` });
  b.step('summarize', 'llm', { parent: root, input: chat('Summarize the warnings across 110 log files.'), output: 'Across the 110 files the warnings cluster around the cache layer, with the', endMetadata: { finish_reason: 'length' } });
  b.end(root, { output: 'Across the 110 files the warnings cluster around the cache layer, with the' });
  return b.finish('ok', 'Across the 110 files the warnings cluster around the cache layer, with the');
});

// ───────────────────────── orphaned spans ─────────────────────────
add('orphaned', 'crashed-mid-download', () => {
  const b = new TraceBuilder({ runId: 'orph-crash', pipeline: 'dataset-builder', input: { url: 'https://data.example.org/big.csv' }, tags: tags('download_file', 'orphaned', 'crashed-run') });
  const a = b.start('build_dataset', 'agent', { input: { url: 'https://data.example.org/big.csv' } });
  b.step('check_space', 'tool', { parent: a, input: { path: '/data' }, output: { free_gb: 120 } });
  b.start('download_file', 'tool', { parent: a, input: { url: 'https://data.example.org/big.csv', dest: '/data/big.csv' } });
  return b;
});
add('orphaned', 'missing-parent-error', () => {
  const b = new TraceBuilder({ runId: 'orph-missing-parent', pipeline: 'image-service', input: { image: 'cat.png' }, tags: tags('resize_image', 'orphaned', 'missing-parent') });
  b.step('load_image', 'tool', { parent: 'span-gone-1', input: { image: 'cat.png' }, output: { width: 4000, height: 3000 } });
  b.step('resize_image', 'tool', { parent: 'span-gone-1', input: { width: 4000, height: 3000, target: 512 }, error: { type: 'MemoryError', message: 'out of memory while resizing 4000x3000' } });
  return b.finish('error', undefined, { type: 'MemoryError', message: 'out of memory' });
});
add('orphaned', 'missing-parent-healthy', () => {
  const b = new TraceBuilder({ runId: 'orph-healthy', pipeline: 'image-service-2', input: { image: 'dog.png' }, tags: tags('', 'orphaned', 'healthy-orphans') });
  b.step('load_image', 'tool', { parent: 'span-gone-2', input: { image: 'dog.png' }, output: { width: 800, height: 600 } });
  b.step('resize_image', 'tool', { parent: 'span-gone-2', input: { width: 800, height: 600, target: 256 }, output: { width: 256, height: 192 } });
  b.verdict(true);
  return b.finish('ok', { width: 256, height: 192 });
});

// ───────────────────────── duplicates ─────────────────────────
add('duplicates', 'duplicate-healthy', () => {
  const q = T.france.question;
  const b = new TraceBuilder({ runId: 'dup-healthy', pipeline: 'dup-qa', input: { question: q }, tags: tags('', 'duplicates', 'healthy-duplicate') });
  const first = b.step('answer', 'llm', { input: chat(q), output: 'Paris.' });
  b.step('answer', 'llm', { input: chat(q), output: 'Paris.', metadata: { duplicate_of: first, instrumentation: 'langchain' } });
  return b.finish('ok', 'Paris.');
});
add('duplicates', 'duplicate-refusal', () => {
  const q = T.australia.question;
  const b = new TraceBuilder({ runId: 'dup-refusal', pipeline: 'dup-qa-2', input: { question: q }, tags: tags('answer#0', 'duplicates', 'duplicated-fault') });
  b.step('retrieve', 'retrieval', { input: { query: q }, output: [{ text: T.australia.relevant[0] }] });
  const first = b.step('answer', 'llm', { input: chat(promptText(q, T.australia.relevant)), output: "I'm sorry, but I can't help with that." });
  b.step('answer', 'llm', { input: chat(promptText(q, T.australia.relevant)), output: "I'm sorry, but I can't help with that.", metadata: { duplicate_of: first, instrumentation: 'openai-sdk' } });
  b.verdict(false, 'refused');
  return b.finish('ok', "I'm sorry, but I can't help with that.");
});

// ───────────────────────── expected answer ─────────────────────────
add('expected', 'lost-in-summary', () => {
  const q = T.warranty.question;
  const b = new TraceBuilder({ runId: 'exp-lost-summary', pipeline: 'warranty-bot', input: { question: q }, tags: tags('condense_context', 'expected', 'lost-information') });
  b.step('retrieve', 'retrieval', { input: { query: q }, output: [{ text: T.warranty.relevant[0] }] });
  b.step('condense_context', 'llm', { input: chat(`Condense for answering "${q}": ${T.warranty.relevant[0]}`), output: 'The X200 warranty covers manufacturing defects and the motor.' });
  b.step('answer', 'llm', { input: chat(`${q}\nContext: The X200 warranty covers manufacturing defects and the motor.`), output: T.warranty.wrong });
  b.verdict(false, 'does not state the duration', '24 months');
  return b.finish('ok', T.warranty.wrong);
});
add('expected', 'never-retrieved', () =>
  ragRun({
    runId: 'exp-never-retrieved',
    tags: tags('retrieve', 'expected', 'never-present'),
    question: 'In which year did Apollo 11 land on the Moon?',
    passages: ['The Apollo program ran from 1961 to 1972 and included six crewed Moon landings.', 'Apollo 14 launched in 1971 and landed at Fra Mauro on the Moon.'],
    answer: 'Apollo 11 landed on the Moon in 1971.',
    verdict: { pass: false, detail: 'wrong year', expected: 'The landing was in 1969.' },
  }),
);

// ───────────────────────── across runs (spectrum) ─────────────────────────
function pricing(i: number, region: boolean): TraceBuilder {
  const sku = `SKU-${4100 + i}`;
  const q = `How much does ${sku} cost?`;
  const b = new TraceBuilder({ runId: `spec-pricing-${i}`, pipeline: 'pricing-bot', input: { question: q }, tags: tags(region ? '' : 'pricing_api', 'spectrum', region ? 'passing-history' : 'failing-history') });
  b.step('parse_request', 'generic', { input: { question: q }, output: { sku } });
  const price = (19.99 + i).toFixed(2);
  b.step('pricing_api', 'tool', { input: region ? { sku, region: 'eu' } : { sku }, output: { sku, price: Number(price), currency: region ? 'EUR' : 'USD' } });
  b.step('answer', 'llm', { input: chat(`${q}\nPrice: ${price}`), output: `${sku} costs ${price}.` });
  b.verdict(region, region ? undefined : 'price is in the wrong currency for an EU customer');
  return b.finish('ok', `${sku} costs ${price}.`);
}
for (let i = 0; i < 6; i++) add('spectrum', `pricing-${i}`, () => pricing(i, i % 2 === 0));
