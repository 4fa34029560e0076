/**
 * Foreign trace formats: detection, parsing into native records, and the
 * OTLP export. The native importer (src-main/engine/importer) calls
 * detectForeignFormat on a file it does not recognise as native JSON Lines
 * and parseForeignFile on the whole text; see docs/formats.md.
 */
import type { TraceRecord } from '../../../../src-shared/trace-format';
import { isObject } from './chat-messages';
import { looksLikeChatMessage, parseChatTranscript } from '../transcript/chat-transcript';
import type { ForeignFormat, ForeignIssue, ForeignRun } from './foreign-run';
import { looksLikeLangChainRun, parseLangChain } from '../langchain/langchain-run-tree';
import { parseOtlp } from '../otlp/otlp-import';
import { runRecords } from './run-records';

export type { ForeignFormat, ForeignIssue } from './foreign-run';
export { exportOtlp } from '../otlp/otlp-export';

export const SUPPORTED_FORMATS_DESCRIPTION =
  'supported: Traceback native JSON Lines; OTLP/JSON traces (an ExportTraceServiceRequest document or JSON Lines of them, with OpenTelemetry GenAI, OpenInference or Traceloop/OpenLLMetry attributes); LangChain/LangSmith run trees (runs with run_type and child_runs, or a flat list with parent_run_id); chat transcripts (a JSON array of {role|name, content} messages)';

const CUT_HISTORY_HEAD = /^\s*\{[\s\S]*?"history"\s*:\s*\[\s*\{\s*"(?:role|name|source|content)"\s*:/;
const CUT_TRANSCRIPT_HEAD = /^\s*(?:\{\s*"messages"\s*:\s*)?\[\s*\{\s*"(?:role|name|source|content)"\s*:/;
const NATIVE_RECORD = /"type"\s*:\s*"(run-start|step-start|step-end|run-end|verdict|score)"/;

function firstJsonValue(head: string): unknown {
  try {
    return JSON.parse(head);
  } catch {
    // The head may be cut mid-document; fall through to the first line or the first array element.
  }
  const firstLine = head.split('\n').find((l) => l.trim() !== '') ?? '';
  try {
    return JSON.parse(firstLine);
  } catch {
    // A pretty-printed array longer than the head.
  }
  const firstObject = /^\s*\[\s*(\{[^{}]*\})/.exec(head);
  if (firstObject) {
    try {
      return [JSON.parse(firstObject[1])];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function detectForeignFormat(head: string, _fileName: string): ForeignFormat | null {
  const text = head.replace(/^\uFEFF/, '');
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return null;
  if (/"(resourceSpans|instrumentationLibrarySpans)"\s*:/.test(text)) return 'otlp';
  const value = firstJsonValue(text);
  const first = Array.isArray(value) ? value[0] : isObject(value) && Array.isArray(value.runs) ? value.runs[0] : value;
  if (looksLikeLangChainRun(first)) return 'langchain';
  if (first === undefined && /"run_type"\s*:\s*"/.test(text) && /"(child_runs|parent_run_id)"\s*:/.test(text)) return 'langchain';
  if (NATIVE_RECORD.test(text.slice(0, 2000))) return null;
  const message = isObject(value) && Array.isArray(value.messages) ? value.messages[0] : isObject(value) && Array.isArray(value.history) ? value.history[0] : first;
  if (looksLikeChatMessage(message)) return 'chat-transcript';
  // A transcript whose first message is longer than the head: judge by how the first message starts.
  if (value === undefined && (CUT_TRANSCRIPT_HEAD.test(text) || CUT_HISTORY_HEAD.test(text)) && /"content"\s*:/.test(text) && !/"run_type"\s*:/.test(text)) return 'chat-transcript';
  return null;
}

export function parseForeignFile(
  text: string,
  format: ForeignFormat,
  fileName: string,
): { records: TraceRecord[]; errors: ForeignIssue[]; lines: number[] } {
  const errors: ForeignIssue[] = [];
  const body = text.replace(/^\uFEFF/, '');
  let runs: ForeignRun[];
  switch (format) {
    case 'otlp':
      runs = parseOtlp(body, errors);
      break;
    case 'langchain':
      runs = parseLangChain(body, fileName, errors);
      break;
    case 'chat-transcript':
      runs = parseChatTranscript(body, fileName, errors);
      break;
    default:
      errors.push({ line: 1, level: 'error', message: `unknown foreign format ${JSON.stringify(format)}; ${SUPPORTED_FORMATS_DESCRIPTION}` });
      runs = [];
  }
  const records: TraceRecord[] = [];
  // Each record's line in the file (its step's), for messages about storing it.
  const lines: number[] = [];
  // A loop, not push(...spread): a spread of 100k+ records overflows the stack.
  for (const run of runs) if (run.steps.length) for (const r of runRecords(run, errors, lines)) records.push(r);
  return { records, errors, lines };
}
