/**
 * Chat transcripts of multi-agent frameworks → one run whose steps are the
 * messages: an array of {role | name | source, content} objects (OpenAI
 * style, AutoGen's `source`), the same wrapped as {messages: [...]} or as
 * {question, history: [...]} (Who&When's multi-agent logs), or one
 * message per line. Each message is a step named for its speaker: agents'
 * messages are `agent` steps, tool results `tool`, system prompts `prompt`,
 * user turns `generic`.
 */
import { createHash } from 'node:crypto';
import type { Json, StepType } from '../../../../src-shared/trace-format';
import { usableTimeMs } from '../../../../src-shared/usable-time';
import { isObject } from '../foreign/chat-messages';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { brokenDocumentError, documentErrorIssue, listElementLines } from '../foreign/json-text-places';

type Message = Record<string, Json>;

export function looksLikeChatMessage(value: unknown): boolean {
  return (
    isObject(value) &&
    'content' in value &&
    (typeof value.role === 'string' || typeof value.name === 'string' || typeof value.source === 'string') &&
    !('run_type' in value) &&
    !('type' in value && typeof value.type === 'string' && /^(run|step)-/.test(value.type))
  );
}

/** The key of a document that holds its messages: `messages`, or `history` (Who&When's multi-agent logs). */
function listKeyOf(doc: unknown): 'messages' | 'history' | null {
  if (!isObject(doc)) return null;
  if (Array.isArray(doc.messages)) return 'messages';
  if (Array.isArray(doc.history)) return 'history';
  return null;
}

/**
 * The task a wrapped transcript states beside its messages (`question`,
 * `task`), kept with the run. The run's input stays the first message: in
 * multi-agent logs it holds the task and the manager's plan together, which
 * is what every later message drew on (measured on Who&When: taking the bare
 * question as the input instead cost 9 points of step accuracy).
 */
function transcriptQuestion(text: string): string | null {
  try {
    const doc = JSON.parse(text) as unknown;
    if (!isObject(doc) || listKeyOf(doc) === null) return null;
    for (const k of ['question', 'task', 'input']) if (typeof doc[k] === 'string' && doc[k] !== '') return doc[k] as string;
  } catch {
    // One message per line: no document-level question.
  }
  return null;
}

function messagesOf(text: string, issues: ForeignIssue[]): { message: Message; line: number; path: string }[] {
  try {
    const doc = JSON.parse(text) as unknown;
    const key = listKeyOf(doc);
    const list = Array.isArray(doc) ? doc : key && isObject(doc) ? (doc[key] as unknown[]) : null;
    if (!list) {
      issues.push({ line: 1, level: 'error', message: 'expected an array of chat messages, {"messages": [...]} or {"history": [...]}' });
      return [];
    }
    const prefix = Array.isArray(doc) ? '' : key!;
    // The line each message starts on, for messages about it (a pretty-printed transcript spans many).
    const lines = listElementLines(text, Array.isArray(doc) ? null : key);
    const lineOf = (i: number) => lines?.[i] ?? 1;
    const out: { message: Message; line: number; path: string }[] = [];
    list.forEach((m, i) => {
      if (looksLikeChatMessage(m)) out.push({ message: m as Message, line: lineOf(i), path: `${prefix}[${i}]` });
      else issues.push({ line: lineOf(i), level: 'error', message: `${prefix}[${i}]: not a chat message (needs "content" and "role", "name" or "source"); skipped` });
    });
    return out;
  } catch {
    // One message per line, unless the text is one document spanning lines that is broken: then one error at its place.
    const broken = brokenDocumentError(text);
    if (broken) {
      issues.push(documentErrorIssue(broken));
      return [];
    }
  }
  const out: { message: Message; line: number; path: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const m = JSON.parse(raw) as unknown;
      if (looksLikeChatMessage(m)) out.push({ message: m as Message, line: i + 1, path: `line ${i + 1}` });
      else issues.push({ line: i + 1, level: 'error', message: `line ${i + 1}: not a chat message; skipped` });
    } catch (error) {
      issues.push({ line: i + 1, level: 'error', message: `line ${i + 1}: not valid JSON (${(error as Error).message}); skipped` });
    }
  });
  return out;
}

function speakerOf(m: Message): string {
  for (const k of ['name', 'source', 'role']) if (typeof m[k] === 'string' && m[k] !== '') return m[k] as string;
  return 'unknown';
}

/**
 * AutoGen/AG2's code executors answer in the chat as a user turn that starts
 * "exitcode: N (execution succeeded|failed)": a tool result, not a person.
 */
const CODE_EXECUTOR_OUTPUT = /^\s*exitcode:\s*-?\d+\s*\(execution\b/i;

function typeOf(m: Message): StepType {
  const role = typeof m.role === 'string' ? m.role : null;
  if (role === 'tool' || role === 'function') return 'tool';
  if (typeof m.content === 'string' && CODE_EXECUTOR_OUTPUT.test(m.content)) return 'tool';
  if (role === 'system' || role === 'developer') return 'prompt';
  if (role === 'user' || role === 'human') return 'generic';
  return 'agent';
}

const TIME_KEYS = ['timestamp', 'created_at', 'time', 'ts'];

/**
 * A message's time in ms (the first of TIME_KEYS that holds one), or null; `unusable` names the first
 * key whose value is there but is no time a Date can hold (unparsable text, 1e300), for a warning.
 */
function timeOf(m: Message): { ms: number | null; unusable: string | null } {
  let unusable: string | null = null;
  for (const k of TIME_KEYS) {
    const v = m[k];
    if (v === undefined || v === null) continue;
    const ms = typeof v === 'number' ? usableTimeMs(v < 1e11 ? v * 1000 : v) : typeof v === 'string' ? usableTimeMs(Date.parse(v)) : null; // seconds or ms
    if (ms !== null) return { ms, unusable: null };
    unusable ??= k;
  }
  return { ms: null, unusable };
}

/** The warning for a message whose time is there but unusable: it counts as missing. */
function unusableTimeIssue(m: Message, key: string, line: number, path: string): ForeignIssue {
  const shown = JSON.stringify(m[key]);
  const value = shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
  return { line, level: 'warning', message: `${path}: "${key}" ${value} is not a usable time; read as missing (the messages' times are then 1 ms apart from 1970)` };
}

export function parseChatTranscript(text: string, fileName: string, issues: ForeignIssue[]): ForeignRun[] {
  const messages = messagesOf(text, issues);
  if (messages.length === 0) return [];
  const times = messages.map(({ message, line, path }) => {
    const t = timeOf(message);
    if (t.unusable !== null) issues.push(unusableTimeIssue(message, t.unusable, line, path));
    return t.ms;
  });
  // Transcripts often carry no times: keep the order with 1 ms per message and say the times are synthetic.
  const synthetic = times.some((t) => t === null);
  const steps: ForeignStep[] = messages.map(({ message, line, path }, i): ForeignStep => {
    const start = synthetic ? i : times[i]!;
    const next = synthetic ? i + 1 : (times[i + 1] ?? start);
    const previous = i > 0 ? messages[i - 1].message : undefined;
    const startMetadata: Record<string, Json> = { attributes: message };
    if (typeof message.role === 'string') startMetadata.role = message.role;
    const endMetadata: Record<string, Json> = {};
    if (Array.isArray(message.tool_calls)) endMetadata.tool_calls = message.tool_calls;
    const output: Json = message.content ?? null;
    return {
      id: `m${i}`,
      parentId: null,
      name: speakerOf(message),
      type: typeOf(message),
      start,
      end: Math.max(start, next),
      status: 'ok',
      ...(previous ? { input: { role: previous.role ?? null, name: speakerOf(previous), content: previous.content ?? null } } : {}),
      output,
      startMetadata,
      endMetadata,
      position: { line, path },
    };
  });
  const first = messages[0].message;
  const question = transcriptQuestion(text);
  const digest = createHash('sha256').update(`${fileName}\0${JSON.stringify(first)}`).digest('hex').slice(0, 24);
  return [
    {
      runId: `chat-${digest}`,
      pipeline: fileName.replace(/\.(jsonl?|ndjson)$/i, ''),
      format: 'chat-transcript',
      steps,
      input: first.content ?? null,
      output: messages[messages.length - 1].message.content ?? null,
      extra: { source_file_name: fileName, ...(question !== null ? { question } : {}), ...(synthetic ? { times_synthetic: true } : {}) },
      finished: true,
    },
  ];
}
