/**
 * Format detection and the bridge to the foreign-format parsers
 * (src-main/engine/importers). Native JSON Lines is recognised by its record
 * types; everything else is offered to the foreign detectors.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TraceRecord } from '../../../src-shared/trace-format';
import { detectForeignFormat, parseForeignFile, SUPPORTED_FORMATS_DESCRIPTION } from './foreign/index';

export type DetectedFormat = { kind: string } | { kind: 'unknown'; message: string };

const HEAD_BYTES = 64 * 1024;
const NATIVE_TYPE = /^\s*\{[^\n]*"type"\s*:\s*"(run-start|step-start|step-end|score|verdict|run-end)"/;

export function detectFileFormat(fd: number, file: string): DetectedFormat {
  const buf = Buffer.alloc(HEAD_BYTES);
  const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
  const head = buf.toString('utf8', 0, n);
  const firstLine = head.split('\n').find((l) => l.trim() !== '') ?? '';
  if (firstLine === '') return { kind: 'native' }; // empty so far: a run about to be written
  if (NATIVE_TYPE.test(firstLine)) return { kind: 'native' };
  const foreign = detectForeignFormat(head, path.basename(file));
  if (foreign) return { kind: foreign };
  // A native file whose first line is damaged still reads as native: its other lines are kept.
  if (/"run_id"\s*:/.test(head) && /"type"\s*:\s*"(step-start|step-end|run-end)"/.test(head)) return { kind: 'native' };
  // A huge damaged first line (e.g. 10 MB of junk) hides everything from the head: look at the lines after it.
  if (laterLineIsNative(fd, n)) return { kind: 'native' };
  return { kind: 'unknown', message: `unknown trace format; ${SUPPORTED_FORMATS_DESCRIPTION}` };
}

/** How far past the head a native record is looked for, in bytes read. */
const SCAN_BYTES = 32 * 1024 * 1024;
const NATIVE_LINE = /\n\s*\{[^\n]*"type"\s*:\s*"(run-start|step-start|step-end|score|verdict|run-end)"/;

function laterLineIsNative(fd: number, headBytes: number): boolean {
  if (headBytes < HEAD_BYTES) return false; // the head was the whole file
  const chunk = Buffer.alloc(1024 * 1024);
  let tail = '';
  for (let pos = 0; pos < SCAN_BYTES; ) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, pos);
    if (n <= 0) return false;
    pos += n;
    // Keep the end of the previous chunk so a record split across two reads is still seen.
    const text = tail + chunk.toString('latin1', 0, n);
    if (NATIVE_LINE.test(text)) return true;
    tail = text.slice(-4096);
  }
  return false;
}

export function parseForeign(text: string, format: string, file: string): { records: TraceRecord[]; errors: { line: number; message: string; level: 'error' | 'warning' }[]; lines: number[] } {
  return parseForeignFile(text, format as Parameters<typeof parseForeignFile>[1], path.basename(file));
}
