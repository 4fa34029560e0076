/**
 * Appends one record per line to `<inbox>/<run_id>.jsonl` as it happens, so
 * the importer can tail a run while it grows. Writes are synchronous: a line
 * is on disk before the step it describes goes on, and a crash loses at most
 * the record being written.
 *
 * Recording must never break the user's pipeline: if the file cannot be
 * opened or written, the writer warns once per process on stderr and from
 * then on drops that run's records quietly.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceRecord } from '../../../src-shared/trace-format';

let warned = false;

/** For tests: forget that the once-per-process warning was given. */
export function resetWriteWarningForTests(): void {
  warned = false;
}

function warnOnce(message: string): void {
  if (warned) return;
  warned = true;
  try {
    process.stderr.write(`traceback: ${message}; this run is not being recorded (further write errors are silent)\n`);
  } catch {
    // stderr itself may be closed; nothing more to do.
  }
}

export interface RecordSink {
  write(record: TraceRecord | Record<string, unknown>): void;
  close(): void;
  readonly path: string | null;
}

export class TraceWriter implements RecordSink {
  private fd: number | null = null;
  private failed = false;
  readonly path: string;

  constructor(inbox: string, runId: string) {
    this.path = join(inbox, `${runId}.jsonl`);
    try {
      mkdirSync(inbox, { recursive: true });
      this.fd = openSync(this.path, 'a');
    } catch (err) {
      this.failed = true;
      warnOnce(`cannot open ${this.path}: ${(err as Error).message}`);
    }
  }

  write(record: TraceRecord | Record<string, unknown>): void {
    if (this.failed || this.fd === null) return;
    let line: string;
    try {
      line = JSON.stringify(record) + '\n';
    } catch (err) {
      // Records are built from already-converted JSON, so this is a bug in the SDK; keep the run going.
      warnOnce(`cannot serialise a ${String((record as { type?: unknown }).type)} record: ${(err as Error).message}`);
      return;
    }
    try {
      writeSync(this.fd, line);
    } catch (err) {
      this.failed = true;
      warnOnce(`cannot write ${this.path}: ${(err as Error).message}`);
      this.close();
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed or invalid: nothing to release.
    }
    this.fd = null;
  }
}
