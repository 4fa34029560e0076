/**
 * The support bot's simulated chat model: offline and deterministic for a
 * given seed. It reads the prompt the way a model would be asked to (answer
 * from the passages, call tools for arithmetic and exchange rates) and
 * behaves like a small instruction-following model:
 * - answers extractively from the best-matching passage sentence, and when no
 *   passage matches it still answers confidently from the first one (so bad
 *   retrieval shows up as a wrong answer, not as "I don't know");
 * - plans calculator / exchange_rate tool calls for price questions;
 * - with `safety: 'strict'` it refuses questions that contain violent words,
 *   even harmless ones ("kill a process"): an over-eager safety filter.
 */
import { tokenize } from './bm25';
import { mulberry32, pick } from './seeded-random';

export interface ToolCall {
  id: string;
  name: 'calculator' | 'exchange_rate';
  input: Record<string, string | number>;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; name: string; tool_call_id: string; content: string };

/** What the `generate` step returns (and records): text, or text plus tool calls. */
export type ModelReply = string | { text: string; tool_calls: ToolCall[] };

export interface SupportModelConfig {
  model: string;
  safety: 'standard' | 'strict';
  seed: number;
}

export interface SimulatedCompletion {
  reply: ModelReply;
  finishReason: 'stop' | 'tool_use' | 'refusal';
  usage: { input_tokens: number; output_tokens: number };
}

const VIOLENT = /\b(kill|attack|destroy|shoot|exploit)\b/i;

function parsePrompt(prompt: string): { question: string; passages: { title: string; text: string }[] } {
  const question = /^Question: (.*)$/m.exec(prompt)?.[1]?.trim() ?? '';
  const passages = [...prompt.matchAll(/^\[\d+\] ([^:\n]+): (.*)$/gm)].map((m) => ({ title: m[1], text: m[2] }));
  return { question, passages };
}

function toolResults(messages: ChatMessage[], name: string): string[] {
  return messages.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool' && m.name === name).map((m) => m.content);
}

const tokens = (text: string) => Math.ceil(text.length / 4);

export function simulateSupportModel(messages: ChatMessage[], config: SupportModelConfig): SimulatedCompletion {
  const rng = mulberry32(config.seed);
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const { question, passages } = parsePrompt(prompt);
  const inputTokens = tokens(messages.map((m) => m.content).join('\n'));
  const done = (reply: ModelReply, finishReason: SimulatedCompletion['finishReason']): SimulatedCompletion => ({
    reply,
    finishReason,
    usage: { input_tokens: inputTokens, output_tokens: tokens(typeof reply === 'string' ? reply : JSON.stringify(reply)) },
  });

  if (config.safety === 'strict' && VIOLENT.test(question)) {
    return done("I'm sorry, but I can't help with that request.", 'refusal');
  }

  const context = passages.map((p) => p.text).join(' ');
  const users = /(\d+)\s+(?:users|seats|people|members)/i.exec(question)?.[1];
  const plan = /\b(Free|Pro|Team)\b/.exec(question)?.[1];
  if (users && plan && /\b(cost|price|pay)\b/i.test(question)) {
    const price = new RegExp(`${plan} plan costs \\$(\\d+(?:\\.\\d+)?) per user per month`).exec(context)?.[1];
    const annual = /\b(year|annual|yearly)\b/i.test(question);
    const months = annual ? /charged for (\d+) months per year/.exec(context)?.[1] : '1';
    if (price && months) {
      const calcs = toolResults(messages, 'calculator');
      const callId = `call_${messages.length}`;
      if (calcs.length === 0) {
        return done({ text: '', tool_calls: [{ id: callId, name: 'calculator', input: { expression: `${price} * ${users} * ${months}` } }] }, 'tool_use');
      }
      const total = calcs[0];
      const period = annual ? 'per year with annual billing' : 'per month';
      if (/\b(euros?|EUR)\b|€/i.test(question)) {
        const rate = toolResults(messages, 'exchange_rate')[0];
        if (!rate) return done({ text: '', tool_calls: [{ id: callId, name: 'exchange_rate', input: { from: 'USD', to: 'EUR' } }] }, 'tool_use');
        if (calcs.length < 2) {
          return done({ text: '', tool_calls: [{ id: callId, name: 'calculator', input: { expression: `${total} * ${rate}` } }] }, 'tool_use');
        }
        return done(`The ${plan} plan for ${users} users costs $${total} ${period}, which is about €${calcs[1]}.`, 'stop');
      }
      return done(`The ${plan} plan for ${users} users costs $${total} ${period}.`, 'stop');
    }
  }

  if (passages.length === 0) return done("I couldn't find anything about that in the documentation.", 'stop');
  const q = new Set(tokenize(question));
  let best = { overlap: -1, sentence: '', title: '' };
  for (const p of passages) {
    for (const sentence of p.text.split(/(?<=\.)\s+/)) {
      const overlap = tokenize(sentence).filter((t) => q.has(t)).length;
      if (overlap > best.overlap) best = { overlap, sentence, title: p.title };
    }
  }
  const lead = pick(rng, ['According to', 'As described in', 'Per']);
  return done(`${lead} "${best.title}": ${best.sentence}`, 'stop');
}
