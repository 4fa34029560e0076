/**
 * Building blocks of the blame scenarios: a knowledge base of questions with
 * relevant and irrelevant passages, the prompt template, and shapes that
 * recur (a RAG chain, an agent turn). Used by generate-scenarios.ts and by
 * the planted-fault bases.
 */
import type { Json } from '../../src-shared/trace-format';
import { TraceBuilder } from '../../test/support/trace-builder';

export interface Topic {
  question: string;
  relevant: string[];
  answer: string;
  wrong: string;
}

export const TOPICS = {
  australia: {
    question: 'What is the capital of Australia?',
    relevant: ['Canberra is the capital city of Australia; it was chosen in 1908 as a compromise between Sydney and Melbourne.'],
    answer: 'The capital of Australia is Canberra.',
    wrong: 'The capital of Australia is Sydney.',
  },
  boiling: {
    question: 'At what temperature does water boil at sea level?',
    relevant: ['At sea level, water boils at 100 degrees Celsius (212 degrees Fahrenheit); at higher altitude the boiling point is lower.'],
    answer: 'At sea level water boils at 100 degrees Celsius (212 °F).',
    wrong: 'Water boils at 90 degrees Celsius at sea level.',
  },
  listAppend: {
    question: 'What is the time complexity of appending to a Python list?',
    relevant: ['Appending to a Python list takes amortized constant time, O(1), because the list over-allocates its storage when it grows.'],
    answer: 'Appending to a Python list is amortized O(1).',
    wrong: 'Appending to a Python list is O(n) because the list is copied every time.',
  },
  refund: {
    question: 'How many days do I have to request a refund?',
    relevant: ['Customers can request a refund within 30 days of purchase if the product is unused and in its original packaging.'],
    answer: 'You can request a refund within 30 days of purchase, as long as the product is unused.',
    wrong: 'Refunds can be requested within 90 days of purchase.',
  },
  everest: {
    question: 'How tall is Mount Everest?',
    relevant: ["Mount Everest's summit is 8,849 metres above sea level, according to the 2020 survey by China and Nepal."],
    answer: 'Mount Everest is 8,849 metres tall (2020 survey).',
    wrong: 'Mount Everest is 8,611 metres tall.',
  },
  photosynthesis: {
    question: 'What does photosynthesis produce in plant cells?',
    relevant: ['Photosynthesis converts light energy, water and carbon dioxide into glucose and oxygen inside the chloroplasts of plant cells.'],
    answer: 'Photosynthesis produces glucose and oxygen.',
    wrong: 'Photosynthesis produces nitrogen and carbon dioxide.',
  },
  acme: {
    question: 'Where is Acme Robotics headquartered and how many people does it employ?',
    relevant: ['Acme Robotics has its headquarters in Toledo, Ohio, and employs about 1,200 people across three factories.'],
    answer: 'Acme Robotics is headquartered in Toledo, Ohio, and employs about 1,200 people.',
    wrong: 'Acme Robotics is headquartered in Denver, Colorado.',
  },
  light: {
    question: 'How fast does light travel in a vacuum?',
    relevant: ['Light travels through a vacuum at 299,792 kilometres per second, a constant usually written c.'],
    answer: 'Light travels at 299,792 kilometres per second in a vacuum.',
    wrong: 'Light travels at 150,000 kilometres per second.',
  },
  password: {
    question: 'How do I reset my password?',
    relevant: ["To reset your password, open Settings, choose Security, and click 'Reset password'; a reset link is emailed to you."],
    answer: "Open Settings, choose Security and click 'Reset password'; you will get a reset link by email.",
    wrong: 'Call customer support to reset your password.',
  },
  insulin: {
    question: 'Which hormone lowers blood glucose?',
    relevant: ['Insulin is a hormone produced by the beta cells of the pancreas; insulin lowers blood glucose by helping cells absorb it.'],
    answer: 'Insulin lowers blood glucose.',
    wrong: 'Glucagon lowers blood glucose.',
  },
  warranty: {
    question: 'How long is the warranty on the X200 vacuum cleaner?',
    relevant: ['The X200 vacuum cleaner comes with a warranty of 24 months covering manufacturing defects and the motor.'],
    answer: 'The X200 warranty lasts 24 months.',
    wrong: 'The X200 warranty covers manufacturing defects.',
  },
  france: {
    question: 'What is the capital of France?',
    relevant: ['Paris is the capital and most populous city of France, on the river Seine.'],
    answer: 'Paris.',
    wrong: 'Lyon.',
  },
} satisfies Record<string, Topic>;

export const NOISE = [
  'Bananas are rich in potassium and are among the most widely eaten fruits in the world.',
  'The Eiffel Tower was completed in 1889 for the Exposition Universelle in Paris.',
  'Knitting patterns often use abbreviations such as k2tog for knit two together.',
  'The 1966 football World Cup final was played at Wembley Stadium in London.',
  'Octopuses have three hearts and blue, copper-based blood.',
  'Jazz emerged in New Orleans in the early twentieth century from blues and ragtime.',
  'The Great Barrier Reef is the largest coral reef system on Earth.',
  'Saturn has more than one hundred known moons, the largest of which is Titan.',
  'Sourdough bread is leavened with a culture of wild yeast and lactic acid bacteria.',
  'Chess openings such as the Sicilian Defence have been studied for centuries.',
];

export function promptText(question: string, passages: string[]): string {
  const ctx = passages.length > 0 ? passages.map((p, i) => `[${i + 1}] ${p}`).join('\n') : '(no context found)';
  return `You are a careful assistant. Answer the question using only the context below. If the context does not contain the answer, say so.\n\nContext:\n${ctx}\n\nQuestion: ${question}\nAnswer:`;
}

export function chat(prompt: string): Json {
  return { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] };
}

export interface RagOptions {
  runId: string;
  pipeline?: string;
  tags: Record<string, string>;
  question: string;
  passages: string[];
  /** What the prompt step received (default: the passages). */
  promptPassages?: string[];
  /** What the prompt step produced (default: the template with promptPassages). */
  promptOutput?: string;
  answer: string;
  answerMeta?: Record<string, Json>;
  answerOutput?: Json;
  answerError?: { type: string; message: string; status?: number };
  names?: { retrieve?: string; prompt?: string; answer?: string };
  rewrite?: string;
  verdict?: { pass: boolean; detail?: string; expected?: Json };
  /** Run status at the end (default ok, or error when the answer raised). */
  end?: 'ok' | 'error' | 'none';
}

/** retrieve → build_prompt → answer, optionally with a query rewrite first. */
export function ragRun(o: RagOptions): TraceBuilder {
  const b = new TraceBuilder({ runId: o.runId, pipeline: o.pipeline ?? `rag-${o.runId}`, input: { question: o.question }, tags: o.tags });
  const names = { retrieve: 'retrieve', prompt: 'build_prompt', answer: 'answer', ...o.names };
  let query = o.question;
  if (o.rewrite !== undefined) {
    b.step('rewrite_query', 'llm', {
      input: chat(`Rewrite this question as a short search query: ${o.question}`),
      output: o.rewrite,
      endMetadata: { finish_reason: 'stop' },
      model: 'gpt-4o-mini',
    });
    query = o.rewrite;
  }
  b.step(names.retrieve, 'retrieval', {
    input: { query, top_k: Math.max(3, o.passages.length) },
    output: o.passages.map((text, i) => ({ id: `doc-${o.runId}-${i}`, text, score: Number((0.9 - i * 0.1).toFixed(2)) })),
  });
  const given = o.promptPassages ?? o.passages;
  const prompt = o.promptOutput ?? promptText(o.question, given);
  b.step(names.prompt, 'prompt', { input: { question: o.question, passages: given }, output: prompt });
  if (o.answerError) {
    b.step(names.answer, 'llm', { input: chat(prompt), error: o.answerError, model: 'gpt-4o-mini' });
  } else {
    b.step(names.answer, 'llm', {
      input: chat(prompt),
      output: o.answerOutput ?? o.answer,
      endMetadata: { finish_reason: 'stop', ...o.answerMeta },
      model: 'gpt-4o-mini',
      usage: { input_tokens: Math.ceil(prompt.length / 4), output_tokens: Math.ceil(o.answer.length / 4) },
    });
  }
  if (o.verdict) b.verdict(o.verdict.pass, o.verdict.detail, o.verdict.expected);
  const end = o.end ?? (o.answerError ? 'error' : 'ok');
  if (end === 'ok') b.finish('ok', o.answer);
  else if (end === 'error') b.finish('error', undefined, o.answerError ?? { type: 'PipelineError', message: 'the pipeline failed' });
  return b;
}

export function toolCall(id: string, name: string, args: Record<string, Json>): Json {
  return { content: '', tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] };
}

export function tags(expected: string, category: string, kind: string, extra: Record<string, string> = {}): Record<string, string> {
  return { expected_blame: expected, category, kind, ...extra };
}

export interface Scenario {
  category: string;
  id: string;
  build: () => TraceBuilder;
}

/** Every scenario, registered by the scenarios-*.ts files in the order they are defined. */
export const SCENARIOS: Scenario[] = [];

export function add(category: string, id: string, build: () => TraceBuilder): void {
  if (SCENARIOS.some((s) => s.category === category && s.id === id)) throw new Error(`duplicate scenario ${category}/${id}`);
  SCENARIOS.push({ category, id, build });
}
