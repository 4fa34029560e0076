/**
 * Watches the inbox and imports files as they appear and grow. Imports of a
 * file are serialised (one at a time, coalescing bursts of change events), so
 * a fast writer costs at most one extra pass.
 */
import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import type { ImportError } from '../../../src-shared/model';
import type { Db } from '../store/open-database';
import { recordErrors } from './import-file';
import { importFileAsync } from './import-file-async';

export const TRACE_FILE = /\.(jsonl|ndjson|json)$/i;

export interface InboxWatcher {
  /** Resolves once the initial scan has been imported. */
  ready: Promise<void>;
  /** Resolves when no import is queued or running (tests wait on this). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface WatchCallbacks {
  onRunsChanged(runIds: string[]): void;
  onErrors(errors: ImportError[]): void;
}

export function watchInbox(db: Db, inbox: string, cb: WatchCallbacks): InboxWatcher {
  const queued = new Set<string>();
  let running: Promise<void> | null = null;
  const idleWaiters: (() => void)[] = [];

  const drain = async () => {
    while (queued.size > 0) {
      const [file] = queued;
      queued.delete(file);
      try {
        // A big OTLP/JSON file streams with turns to the event loop, so API calls are answered meanwhile.
        const r = await importFileAsync(db, file);
        if (r.changedRuns.length) cb.onRunsChanged(r.changedRuns);
        if (r.newErrors.length) cb.onErrors(r.newErrors);
      } catch (err) {
        const problem: ImportError = { file, line: 0, level: 'error', message: `import failed: ${(err as Error).message}` };
        // Stored too, so the error is still listed after a restart (not only pushed to whoever listens now).
        try {
          recordErrors(db, [problem]);
        } catch {
          // The database itself failed; the event below still reports it.
        }
        cb.onErrors([problem]);
      }
      // Yield between files so other work (API calls) interleaves.
      await new Promise((r) => setImmediate(r));
    }
    running = null;
    idleWaiters.splice(0).forEach((w) => w());
  };
  const enqueue = (file: string) => {
    if (!TRACE_FILE.test(file)) return;
    queued.add(path.resolve(file));
    running ??= drain();
  };

  const watcher: FSWatcher = watch(inbox, { ignoreInitial: false, depth: 2, persistent: true });
  watcher.on('add', enqueue);
  watcher.on('change', enqueue);
  watcher.on('error', (err) => cb.onErrors([{ file: inbox, line: 0, level: 'error', message: `watching the inbox failed: ${(err as Error).message}` }]));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve())).then(() => (running ?? Promise.resolve()));

  return {
    ready,
    idle: () => (running ? new Promise<void>((r) => idleWaiters.push(r)) : Promise.resolve()),
    close: async () => {
      await watcher.close();
      await (running ?? Promise.resolve());
    },
  };
}
