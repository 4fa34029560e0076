/**
 * Appends one record per line to `<inbox>/<run_id>.jsonl`, so the importer
 * can tail a run while it grows.
 *
 * Lines are buffered for at most one turn of the event loop and then written
 * with one synchronous write: a step's start and end usually share a write,
 * which halves the system calls per step (the SDK's main cost, ~5 µs each).
 * The buffer is also written when it passes 256 KB, when the run ends, and
 * on process exit (also after an uncaught exception), so a crash loses at
 * most the records of the current event-loop turn, and only on a hard kill.
 *
 * Recording must never break the user's pipeline: if the file cannot be
 * opened or written, the writer warns once per process on stderr and from
 * then on drops that run's records quietly.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceRecord } from './trace-format.js';

const MAX_BUFFERED_CHARS = 256 * 1024;

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
  /** Write buffered lines now. */
  flush(): void;
  close(): void;
  readonly path: string | null;
}

/** Writers with buffered lines, flushed together at the next event-loop turn or at exit. */
const pending = new Set<TraceWriter>();
let flushScheduled = false;
let exitHookInstalled = false;

function flushPending(): void {
  flushScheduled = false;
  for (const w of [...pending]) w.flush();
}

function scheduleFlush(w: TraceWriter): void {
  pending.add(w);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', flushPending);
  }
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushPending).unref?.();
}

export class TraceWriter implements RecordSink {
  private fd: number | null = null;
  private failed = false;
  private buffer = '';
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
    try {
      this.buffer += JSON.stringify(record) + '\n';
    } catch (err) {
      // Records are built from already-converted JSON, so this is a bug in the SDK; keep the run going.
      warnOnce(`cannot serialise a ${String((record as { type?: unknown }).type)} record: ${(err as Error).message}`);
      return;
    }
    if (this.buffer.length > MAX_BUFFERED_CHARS) this.flush();
    else scheduleFlush(this);
  }

  flush(): void {
    pending.delete(this);
    if (!this.buffer || this.fd === null) return;
    const text = this.buffer;
    this.buffer = '';
    try {
      writeSync(this.fd, text);
    } catch (err) {
      this.failed = true;
      warnOnce(`cannot write ${this.path}: ${(err as Error).message}`);
      this.close();
    }
  }

  close(): void {
    this.flush();
    pending.delete(this);
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed or invalid: nothing to release.
    }
    this.fd = null;
  }
}
