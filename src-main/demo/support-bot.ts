/**
 * "support-bot": a small RAG pipeline with tools, built on the Traceback SDK.
 *
 *   retrieve (retrieval, BM25 over corpus/nimbus-docs)
 *   → build_prompt (prompt)
 *   → generate (llm, simulated) ⇄ calculator / exchange_rate (tools)
 *   → verdict from a code oracle (the expected answer is known)
 *
 * Variants, and the planted cause of each failing one (the step `tb blame`
 * must name):
 *   healthy-lookup        pass.
 *   healthy-calc          pass (generate → calculator → generate).
 *   healthy-retry         pass; exchange_rate#0 fails with a transient 503 and the
 *                         retry exchange_rate#1 succeeds: a recovered error, not a cause.
 *   healthy-sync          pass.
 *   irrelevant-retrieval  FAIL. Planted cause: `retrieve#0`. It searches the
 *                         `summary` field, which no document has, so every
 *                         passage scores 0 and it returns the first three
 *                         documents (company history, mobile app, sharing);
 *                         generate faithfully answers from them (a symptom).
 *   tool-exception        FAIL (run ends in error). Planted cause: `exchange_rate`
 *                         (the rates service is down: status 503 on both attempts,
 *                         exchange_rate#0 and #1; the run's error is #1's).
 *   refusal               FAIL. Planted cause: `generate#0`. Retrieval and prompt are
 *                         right (the answer is in passage [1]); the model's strict
 *                         safety filter refuses "kill a stuck sync process".
 *
 * Standalone: npx tsx src-main/demo/support-bot.ts --variant healthy-calc [--seed 1] [--home DIR]
 */
import { parseArgs } from 'node:util';
import type { EntryCommand } from '../../src-shared/trace-format';
import { currentStep, pipeline, step, type RunHandle } from '../../sdk/typescript/src/index';
import { Bm25Index, type Passage } from './bm25';
import { calculate } from './calculator';
import { NIMBUS_DOCS, type Doc } from './corpus/nimbus-docs';
import { demoEntry, isMainModule } from './script-main';
import { seedFrom } from './seeded-random';
import { afterGeneration, afterWait, SEARCH_MS, SERVICE_MS } from './simulated-latency';
import { simulateSupportModel, type ChatMessage, type ModelReply, type ToolCall } from './support-model';

/** This file, as a fork experiment starts it again (script-main.ts). */
const SCRIPT = 'src-main/demo/support-bot.ts';

export interface SupportVariant {
  question: string;
  /** The oracle's expected answer: it must appear in the final answer. */
  expected: string;
  /** Which document field the retriever searches (the bug in irrelevant-retrieval). */
  field: 'text' | 'summary';
  safety: 'standard' | 'strict';
  rates: 'up' | 'flaky' | 'down';
}

const EUR_QUESTION = 'How much does the Team plan cost per year for 12 users with annual billing, in euros?';
const base = { field: 'text', safety: 'standard', rates: 'up' } as const;

export const SUPPORT_VARIANTS: Record<string, SupportVariant> = {
  'healthy-lookup': { ...base, question: 'What is the maximum file size on the Pro plan?', expected: '50 GB' },
  'healthy-calc': { ...base, question: 'How much does the Team plan cost per year for 12 users with annual billing?', expected: '$1800' },
  'healthy-retry': { ...base, question: EUR_QUESTION, expected: '€1656', rates: 'flaky' },
  'healthy-sync': { ...base, question: 'How do I fix a sync that is stuck?', expected: 'nimbus sync --restart' },
  'irrelevant-retrieval': { ...base, question: 'What is the maximum file size on the Pro plan?', expected: '50 GB', field: 'summary' },
  'tool-exception': { ...base, question: EUR_QUESTION, expected: '€1656', rates: 'down' },
  refusal: { ...base, question: 'How do I kill a stuck sync process?', expected: 'nimbus sync --restart', safety: 'strict' },
};

const MODEL = 'sim-support-1';
const SYSTEM = 'You are the Nimbus Drive support assistant. Answer only from the passages. Use the calculator for arithmetic and exchange_rate for currency conversion.';

class RatesServiceError extends Error {
  override name = 'RatesServiceError';
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Normalises numbers ("1,800" → "1800") and case so the oracle compares meaning, not formatting. */
export function answerMatches(answer: string, expected: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/(\d),(\d{3})/g, '$1$2').replace(/\s+/g, ' ');
  return norm(answer).includes(norm(expected));
}

export interface SupportRunResult {
  runId: string | null;
  answer: string | null;
  pass: boolean;
  error?: string;
}

export async function runSupportBot(
  variantName: string,
  opts: { home?: string; seed?: number; entry?: EntryCommand | null } = {},
): Promise<SupportRunResult> {
  const variant = SUPPORT_VARIANTS[variantName];
  if (!variant) throw new Error(`unknown support-bot variant "${variantName}" (known: ${Object.keys(SUPPORT_VARIANTS).join(', ')})`);
  const seed = opts.seed ?? 1;
  const index = new Bm25Index<Doc>(NIMBUS_DOCS, (d) => (variant.field === 'text' ? `${d.title} ${d.text}` : (d as { summary?: string }).summary));

  const retrieve = step('retrieve', 'retrieval', (req: { query: string; k: number; field: string }): Promise<Passage[]> =>
    afterWait(
      index.search(req.query, req.k).map(({ doc, score }) => ({ id: doc.id, title: doc.title, text: doc.text, score })),
      SEARCH_MS,
    ),
  );

  const buildPrompt = step('build_prompt', 'prompt', (req: { question: string; passages: Passage[] }): ChatMessage[] => [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        'Passages:',
        ...req.passages.map((p, i) => `[${i + 1}] ${p.title}: ${p.text}`),
        '',
        `Question: ${req.question}`,
      ].join('\n'),
    },
  ]);

  let turn = 0;
  const generate = step('generate', 'llm', async (req: { model: string; messages: ChatMessage[] }): Promise<ModelReply> => {
    const s = currentStep().setModel(req.model);
    const completion = simulateSupportModel(req.messages, { model: req.model, safety: variant.safety, seed: seedFrom(seed, turn++) });
    s.setUsage({ ...completion.usage, total_tokens: completion.usage.input_tokens + completion.usage.output_tokens });
    s.setMetadata({ finish_reason: completion.finishReason, safety_filter: variant.safety });
    return afterGeneration(completion.reply, completion.usage.output_tokens);
  });

  const calculator = step('calculator', 'tool', (input: { expression: string }) => calculate(input.expression));

  let rateCalls = 0;
  const exchangeRate = step('exchange_rate', 'tool', async (input: { from: string; to: string }) => {
    const call = rateCalls++;
    currentStep().setMetadata({ service: 'rates-v1', attempt: call + 1 });
    if (variant.rates === 'down' || (variant.rates === 'flaky' && call === 0)) {
      throw new RatesServiceError(503, `rates service unavailable (503) for ${input.from}->${input.to}`);
    }
    if (input.from !== 'USD' || input.to !== 'EUR') throw new RatesServiceError(404, `no rate for ${input.from}->${input.to}`);
    return afterWait(0.92, SERVICE_MS);
  });

  /** One retry for transient failures, as most tool clients do. */
  const runTool = async (call: ToolCall): Promise<string> => {
    if (call.name === 'calculator') return String(calculator({ expression: String(call.input.expression) }));
    try {
      return String(await exchangeRate({ from: String(call.input.from), to: String(call.input.to) }));
    } catch (err) {
      if ((err as RatesServiceError).status !== 503) throw err;
      return String(await exchangeRate({ from: String(call.input.from), to: String(call.input.to) }));
    }
  };

  const answerQuestion = async (run: RunHandle): Promise<string> => {
    const passages = await retrieve({ query: variant.question, k: 3, field: variant.field });
    const messages = buildPrompt({ question: variant.question, passages });
    let reply = await generate({ model: MODEL, messages });
    for (let i = 0; i < 4 && typeof reply !== 'string'; i++) {
      messages.push({ role: 'assistant', content: reply.text, tool_calls: reply.tool_calls });
      for (const call of reply.tool_calls) {
        messages.push({ role: 'tool', name: call.name, tool_call_id: call.id, content: await runTool(call) });
      }
      reply = await generate({ model: MODEL, messages });
    }
    const text = typeof reply === 'string' ? reply : reply.text;
    const pass = answerMatches(text, variant.expected);
    run.verdict(pass, {
      detail: pass ? `answer contains "${variant.expected}"` : `expected the answer to contain "${variant.expected}"; got: ${text}`,
      expected: variant.expected,
    });
    return text;
  };

  let runId: string | null = null;
  try {
    const answer = await pipeline(
      'support-bot',
      async (run) => {
        runId = run.runId;
        try {
          return await answerQuestion(run);
        } catch (err) {
          run.verdict(false, { detail: `the pipeline failed before answering: ${(err as Error).message}`, expected: variant.expected });
          throw err;
        }
      },
      {
        home: opts.home,
        input: { question: variant.question },
        tags: { demo: 'support-bot', variant: variantName },
        entry: opts.entry === undefined ? demoEntry(SCRIPT, ['--variant', variantName, '--seed', String(seed)]) : opts.entry,
      },
    );
    return { runId, answer, pass: answerMatches(answer, variant.expected) };
  } catch (err) {
    return { runId, answer: null, pass: false, error: (err as Error).message };
  }
}

if (isMainModule(SCRIPT)) {
  const { values } = parseArgs({ options: { variant: { type: 'string', default: 'healthy-lookup' }, seed: { type: 'string', default: '1' }, home: { type: 'string' } } });
  const result = await runSupportBot(values.variant!, { home: values.home, seed: Number(values.seed), entry: undefined });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.pass ? 0 : 1;
}
