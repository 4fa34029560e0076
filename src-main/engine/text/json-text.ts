/**
 * Reading free text out of JSON step fields: the text of a value, the
 * passages of a retrieval result, the query of a retrieval, the text and tool
 * calls of an LLM response. Field names follow the common SDK shapes
 * (OpenAI, Anthropic, LangChain, LlamaIndex); anything else falls back to
 * "all string leaves".
 */
import type { Json } from '../../../src-shared/trace-format';

type Obj = { [key: string]: Json };

export function isObj(v: Json | null | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** String and number leaves joined by newlines (keys are structure, not content), up to maxChars. */
export function jsonText(v: Json | null | undefined, maxChars = 200_000): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.length > maxChars ? v.slice(0, maxChars) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const parts: string[] = [];
  let size = 0;
  const walk = (x: Json): void => {
    if (size >= maxChars) return;
    if (typeof x === 'string') {
      parts.push(x);
      size += x.length + 1;
    } else if (typeof x === 'number') {
      const s = String(x);
      parts.push(s);
      size += s.length + 1;
    } else if (Array.isArray(x)) {
      for (const y of x) walk(y);
    } else if (x !== null && typeof x === 'object') {
      for (const k in x) walk(x[k]);
    }
  };
  walk(v);
  const text = parts.join('\n');
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}

/** Every string leaf with its path, in document order (for verbatim quotes). */
export function stringLeaves(v: Json | null | undefined): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (x: Json | null | undefined, path: string): void => {
    if (typeof x === 'string') out.push({ path, text: x });
    else if (typeof x === 'number' || typeof x === 'boolean') out.push({ path, text: String(x) });
    else if (Array.isArray(x)) x.forEach((y, i) => walk(y, `${path}[${i}]`));
    else if (x !== null && x !== undefined && typeof x === 'object') for (const k in x) walk(x[k], path ? `${path}.${k}` : k);
  };
  walk(v, '');
  return out;
}

/**
 * The texts of stringLeaves(v), in the same order, without their paths: for callers that only search the text.
 * Building every leaf's path string and object was ~4 MB of a 100,000-step blame's garbage, most of it for
 * evidence quotes that search for a known needle (allocation profile of the synthetic run).
 */
export function leafTexts(v: Json | null | undefined, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
  else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) leafTexts(v[i], out);
  else if (v !== null && v !== undefined && typeof v === 'object') for (const k in v) leafTexts(v[k], out);
  return out;
}

const PASSAGE_TEXT_KEYS = ['text', 'content', 'page_content', 'pageContent', 'document', 'snippet', 'body', 'passage', 'chunk', 'summary'];
const PASSAGE_LIST_KEYS = ['documents', 'docs', 'results', 'passages', 'hits', 'items', 'chunks', 'matches', 'nodes', 'source_documents', 'context', 'candidates'];

function passageText(x: Json): string | null {
  if (typeof x === 'string') return x;
  if (isObj(x)) {
    for (const k of PASSAGE_TEXT_KEYS) {
      const v = x[k];
      if (typeof v === 'string') return v;
      if (isObj(v)) {
        const inner = passageText(v);
        if (inner !== null) return inner;
      }
    }
    const t = jsonText(x);
    return t === '' ? null : t;
  }
  return null;
}

/**
 * The passages of a retrieval-like value: a list of strings or documents, or
 * an object holding such a list. Null when the value is not list-shaped at
 * all (an empty list is `[]`, which is a finding, not "not applicable").
 */
export function passagesOf(v: Json | null | undefined): string[] | null {
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const x of v) {
      const t = passageText(x);
      if (t !== null) out.push(t);
    }
    return out;
  }
  if (isObj(v)) {
    for (const k of PASSAGE_LIST_KEYS) {
      if (Array.isArray(v[k])) return passagesOf(v[k]);
    }
  }
  return null;
}

const QUERY_KEYS = ['query', 'q', 'question', 'search', 'search_query', 'query_str', 'text', 'prompt', 'input'];

export function queryOf(input: Json | null | undefined): string {
  if (typeof input === 'string') return input;
  if (isObj(input)) {
    for (const k of QUERY_KEYS) {
      const v = input[k];
      if (typeof v === 'string') return v;
    }
  }
  return jsonText(input, 5000);
}

/** The natural-language text of an LLM response (tool calls excluded). */
export function llmText(v: Json | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((b) => (isObj(b) && (b.type === 'text' || b.type === undefined) ? llmText(b.text ?? b.content ?? null) : typeof b === 'string' ? b : ''))
      .filter((s) => s !== '')
      .join('\n');
  }
  if (isObj(v)) {
    for (const k of ['content', 'text', 'output_text', 'completion', 'answer', 'response', 'output', 'result']) {
      if (k in v && v[k] !== null) {
        const t = llmText(v[k]);
        if (t !== '' || typeof v[k] === 'string') return t;
      }
    }
    if (isObj(v.message)) return llmText(v.message);
    if (Array.isArray(v.choices) && v.choices.length > 0) return llmText(v.choices[0]);
    if (hasToolCalls(v)) return '';
    return jsonText(v);
  }
  return String(v);
}

export function hasToolCalls(v: Json | null | undefined): boolean {
  if (!isObj(v)) {
    return Array.isArray(v) && v.some((b) => isObj(b) && (b.type === 'tool_use' || b.type === 'function_call'));
  }
  if (Array.isArray(v.tool_calls) && v.tool_calls.length > 0) return true;
  if (isObj(v.function_call)) return true;
  if (Array.isArray(v.content)) return hasToolCalls(v.content);
  if (isObj(v.message)) return hasToolCalls(v.message);
  if (Array.isArray(v.choices) && v.choices.length > 0) return hasToolCalls(v.choices[0]);
  return false;
}

/** JSON type name as metadata.expected_type spells it. */
export function jsonTypeOf(v: Json | null | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export function isEmptyPayload(v: Json | null | undefined): 'empty' | 'empty-list' | null {
  if (v === null || v === undefined) return 'empty';
  if (typeof v === 'string') return v.trim() === '' ? 'empty' : null;
  if (Array.isArray(v)) return v.length === 0 ? 'empty-list' : null;
  if (isObj(v)) {
    let any = false;
    for (const _ in v) {
      any = true;
      break;
    }
    if (!any) return 'empty';
    let lists = 0;
    for (const k of PASSAGE_LIST_KEYS) {
      const x = v[k];
      if (!Array.isArray(x)) continue;
      if (x.length > 0) return null;
      lists++;
    }
    if (lists > 0) return 'empty-list';
  }
  return null;
}
