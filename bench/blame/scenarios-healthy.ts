/**
 * Scenarios, part 3: healthy runs of every shape. They must get no blame at
 * all; several are also the bases that planted-faults.ts injects faults into.
 */
import { TraceBuilder } from '../../test/support/trace-builder';
import { NOISE, TOPICS, add, chat, ragRun, tags, toolCall } from './scenario-kit';

const T = TOPICS;

add('healthy', 'rag-verdict-pass', () =>
  ragRun({ runId: 'ok-rag-verdict', tags: tags('', 'healthy', 'rag'), question: T.australia.question, passages: [T.australia.relevant[0], NOISE[2]], answer: T.australia.answer, verdict: { pass: true } }),
);
add('healthy', 'rag-rewrite-no-verdict', () =>
  ragRun({ runId: 'ok-rag-rewrite', tags: tags('', 'healthy', 'rag-rewrite'), question: T.everest.question, rewrite: 'Mount Everest height metres', passages: [T.everest.relevant[0], NOISE[0], NOISE[7]], answer: T.everest.answer }),
);
add('healthy', 'rag-insulin', () =>
  ragRun({ runId: 'ok-rag-insulin', tags: tags('', 'healthy', 'rag'), question: T.insulin.question, passages: [T.insulin.relevant[0]], answer: T.insulin.answer, verdict: { pass: true } }),
);
add('healthy', 'one-word-answer', () =>
  ragRun({ runId: 'ok-one-word', tags: tags('', 'healthy', 'one-word'), question: T.france.question, passages: [T.france.relevant[0]], answer: 'Paris.' }),
);
add('healthy', 'yes-no-classifier', () => {
  const b = new TraceBuilder({ runId: 'ok-yes-no', pipeline: 'spam-filter', input: { email: 'WIN A FREE CRUISE!!! Click here to claim your prize now.' }, tags: tags('', 'healthy', 'one-word') });
  b.step('classify', 'llm', { input: chat('Is this email spam? Answer Yes or No.\nWIN A FREE CRUISE!!! Click here to claim your prize now.'), output: 'Yes', endMetadata: { finish_reason: 'stop' } });
  return b.finish('ok', 'Yes');
});
add('healthy', 'legitimately-empty-search', () => {
  const q = 'List the orders of customer CUST-0042 placed in 2019.';
  const b = new TraceBuilder({ runId: 'ok-empty-legit', pipeline: 'orders-qa', input: { question: q }, tags: tags('', 'healthy', 'legitimately-empty') });
  b.step('search_orders', 'retrieval', { input: { query: 'customer CUST-0042 orders 2019' }, output: [] });
  b.step('answer', 'llm', { input: chat(`${q}\nResults: none`), output: 'There are no orders for customer CUST-0042 in 2019.' });
  b.verdict(true);
  return b.finish('ok', 'There are no orders for customer CUST-0042 in 2019.');
});
add('healthy', 'legitimately-empty-alerts', () => {
  const b = new TraceBuilder({ runId: 'ok-empty-alerts', pipeline: 'ops-bot', input: { question: 'Are there any active alerts?' }, tags: tags('', 'healthy', 'legitimately-empty') });
  b.step('list_alerts', 'tool', { input: { state: 'active' }, output: [], metadata: { expected_type: 'array' } });
  b.step('reply', 'llm', { input: chat('Active alerts: []\nAre there any active alerts?'), output: 'No active alerts.' });
  return b.finish('ok', 'No active alerts.');
});
add('healthy', 'agent-two-tools', () => {
  const q = 'Is it going to rain in Lisbon on 2024-10-02, and do I have meetings that day?';
  const b = new TraceBuilder({ runId: 'ok-agent-tools', pipeline: 'assistant-agent', input: { question: q }, tags: tags('', 'healthy', 'agent') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_a1', 'get_weather', { city: 'Lisbon', date: '2024-10-02' }) });
  b.step('get_weather', 'tool', { parent: a, input: { city: 'Lisbon', date: '2024-10-02' }, metadata: { tool_call_id: 'call_a1' }, output: { city: 'Lisbon', date: '2024-10-02', rain_probability: 0.7 } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nWeather: rain_probability 0.7`), output: toolCall('call_a2', 'get_calendar', { date: '2024-10-02' }) });
  b.step('get_calendar', 'tool', { parent: a, input: { date: '2024-10-02' }, metadata: { tool_call_id: 'call_a2' }, output: [{ time: '10:00', title: 'Design review' }] });
  const ans = 'Rain is likely in Lisbon on 2024-10-02 (70%), and you have one meeting: Design review at 10:00.';
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nWeather: rain_probability 0.7\nCalendar: 10:00 Design review`), output: ans });
  b.end(a, { output: ans });
  return b.finish('ok', ans);
});
add('healthy', 'side-effect-null', () => {
  const b = new TraceBuilder({ runId: 'ok-side-effect', pipeline: 'notifier', input: { to: 'team@example.com', subject: 'Deploy done' }, tags: tags('', 'healthy', 'side-effect') });
  b.step('compose', 'llm', { input: chat('Write a one-line note: deploy finished'), output: 'The deploy finished successfully at 14:02.' });
  b.step('send_email', 'tool', { input: { to: 'team@example.com', body: 'The deploy finished successfully at 14:02.' }, output: null, metadata: { side_effect: true } });
  return b.finish('ok', { sent: true });
});
add('healthy', 'consistent-samples', () => {
  const b = new TraceBuilder({ runId: 'ok-consistent', pipeline: 'geo-facts', input: { question: T.australia.question }, tags: tags('', 'healthy', 'samples') });
  b.step('answer', 'llm', {
    input: chat(T.australia.question),
    output: 'The capital of Australia is Canberra.',
    endMetadata: { samples: ['The capital of Australia is Canberra.', 'Canberra is the capital of Australia.', "Australia's capital city is Canberra."] },
  });
  return b.finish('ok', 'The capital of Australia is Canberra.');
});
add('healthy', 'concise-number', () => {
  const b = new TraceBuilder({ runId: 'ok-concise-number', pipeline: 'calculator', input: { question: 'What is 17 times 3?' }, tags: tags('', 'healthy', 'one-word') });
  b.step('compute', 'llm', { input: chat('What is 17 times 3?'), output: '51' });
  return b.finish('ok', '51');
});
add('healthy', 'codegen-ok', () => {
  const code = 'data = [3, 5, 10]\nprint(sum(data) / len(data))';
  const b = new TraceBuilder({ runId: 'ok-codegen', pipeline: 'code-agent-ok', input: { task: 'Compute the mean of [3, 5, 10]' }, tags: tags('', 'healthy', 'codegen') });
  b.step('write_code', 'llm', { input: chat('Write Python for: Compute the mean of [3, 5, 10]'), output: code });
  b.step('run_python', 'tool', { input: { code }, output: { stdout: '6.0\n', exit_code: 0 } });
  b.step('report', 'llm', { input: chat('The program printed 6.0. State the mean.'), output: 'The mean is 6.0.' });
  return b.finish('ok', 'The mean is 6.0.');
});
add('healthy', 'long-answer', () =>
  ragRun({
    runId: 'ok-long-answer',
    tags: tags('', 'healthy', 'long-answer'),
    question: T.photosynthesis.question,
    passages: [T.photosynthesis.relevant[0], 'Chlorophyll absorbs mostly blue and red light, which is why leaves look green.'],
    answer:
      'Photosynthesis takes place in the chloroplasts of plant cells. Using light energy absorbed by chlorophyll, the plant combines water and carbon dioxide to produce glucose, which stores chemical energy, and releases oxygen as a by-product.',
  }),
);
add('healthy', 'chat-recommendation', () => {
  const b = new TraceBuilder({ runId: 'ok-chat', pipeline: 'chat', input: { message: 'Can you recommend a good book for a long flight?' }, tags: tags('', 'healthy', 'chat') });
  b.step('chat', 'llm', { input: chat('Can you recommend a good book for a long flight?'), output: "Sure — try 'Project Hail Mary' by Andy Weir; it is gripping, funny and easy to read on a plane." });
  return b.finish('ok', "Sure — try 'Project Hail Mary' by Andy Weir; it is gripping, funny and easy to read on a plane.");
});
add('healthy', 'sql-agent', () => {
  const q = 'How many users signed up on 2024-05-20?';
  const b = new TraceBuilder({ runId: 'ok-sql-agent', pipeline: 'sql-agent', input: { question: q }, tags: tags('', 'healthy', 'agent') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('write_sql', 'llm', { parent: a, input: chat(`Write SQL for: ${q}`), output: "SELECT COUNT(*) FROM users WHERE signup_date = '2024-05-20'" });
  b.step('db_query', 'tool', { parent: a, input: { sql: "SELECT COUNT(*) FROM users WHERE signup_date = '2024-05-20'" }, output: [{ count: 318 }] });
  b.step('answer', 'llm', { parent: a, input: chat(`${q}\nResult: 318`), output: '318 users signed up on 2024-05-20.' });
  b.end(a, { output: '318 users signed up on 2024-05-20.' });
  b.verdict(true);
  return b.finish('ok', '318 users signed up on 2024-05-20.');
});
add('healthy', 'running-run', () => {
  const b = new TraceBuilder({ runId: 'ok-running', pipeline: 'slow-batch', input: { job: 'reindex' }, tags: tags('', 'healthy', 'still-running', { bench_running: 'true' }) });
  const a = b.start('reindex', 'agent', { input: { job: 'reindex' } });
  b.step('scan_shard', 'tool', { parent: a, input: { shard: 11 }, output: { docs: 5120 } });
  b.start('scan_shard', 'tool', { parent: a, input: { shard: 12 } });
  return b;
});

