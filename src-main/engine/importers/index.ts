// Temporary bridge written by the lead so the native importer compiles; the
// foreign-formats engineer replaces this whole file with the real parsers.
import type { TraceRecord } from '../../../src-shared/trace-format';

export type ForeignFormat = 'otlp' | 'langchain' | 'chat-transcript';
export const SUPPORTED_FORMATS_DESCRIPTION = 'supported: Traceback native JSON Lines (.jsonl)';

export function detectForeignFormat(_head: string, _fileName: string): ForeignFormat | null {
  return null;
}

export function parseForeignFile(
  _text: string,
  _format: ForeignFormat,
  _fileName: string,
): { records: TraceRecord[]; errors: { line: number; message: string; level: 'error' | 'warning' }[] } {
  return { records: [], errors: [] };
}
