/**
 * Watches the inbox and imports files as they appear and grow. Imports of a
 * file are serialised (one at a time, coalescing bursts of change events), so
 * a fast writer costs at most one extra pass.
 *
 * File events can be missed: a file copied in is seen (and imported) while
 * still empty, and its data lands before chokidar watches the file itself.
 * So each imported file is looked at again shortly after, and every file
 * now and then; one whose size or time differs from what was imported is
 * imported again (reading only what is new, as for any change).
 */
import { watch, type FSWatcher } from 'chokidar';
import fs from 'node:fs';
import path from 'node:path';
import type { ImportError } from '../../../src-shared/model';
import type { Db } from '../store/open-database';
import { recordErrors } from './import-file';
import { importFileAsync } from './import-file-async';
import type { ImportProgress } from '../../../src-shared/import-progress';

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
  /** How far a big file's import has got (files the engine streams: OTLP/JSON of 4 MB or more). */
  onProgress?(progress: ImportProgress): void;
  /**
   * Each import's controller, for the engine's cancelImport; returns the call
   * that forgets it. A cancelled file is not imported again until it changes.
   */
  track?(controller: AbortController): () => void;
}

/** After an import, when the file is looked at again (ms). */
const RECHECK_AFTER_MS = [250, 2000];
/** How often every file in the inbox is looked at (ms). */
const SWEEP_EVERY_MS = 15_000;

type Seen = { size: number; mtimeMs: number };

function statOf(file: string): Seen | null {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  } catch {
    return null;
  }
}

export function watchInbox(db: Db, inbox: string, cb: WatchCallbacks): InboxWatcher {
  const queued = new Set<string>();
  /** Each file's size and time when its last import began. */
  const seen = new Map<string, Seen>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    t.unref();
    timers.add(t);
  };
  const changedSinceImport = (file: string) => {
    const now = statOf(file);
    const then = seen.get(file);
    return now !== null && (!then || now.size !== then.size || now.mtimeMs !== then.mtimeMs);
  };
  let running: Promise<void> | null = null;
  const idleWaiters: (() => void)[] = [];

  const drain = async () => {
    while (queued.size > 0) {
      const [file] = queued;
      queued.delete(file);
      const before = statOf(file);
      if (before) seen.set(file, before);
      else seen.delete(file);
      for (const ms of RECHECK_AFTER_MS) later(ms, () => changedSinceImport(file) && enqueue(file));
      try {
        // A big OTLP/JSON file streams with turns to the event loop, so API calls are answered meanwhile.
        const controller = new AbortController();
        const untrack = cb.track?.(controller);
        let r;
        try {
          r = await importFileAsync(db, file, { signal: controller.signal, onProgress: cb.onProgress, skipUnchanged: true });
        } finally {
          untrack?.();
        }
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
  const sweep = () => {
    for (const [dir, names] of Object.entries(watcher.getWatched())) {
      for (const name of names) {
        const file = path.resolve(dir, name);
        if (TRACE_FILE.test(file) && changedSinceImport(file)) enqueue(file);
      }
    }
    later(SWEEP_EVERY_MS, sweep);
  };
  watcher.on('add', enqueue);
  watcher.on('change', enqueue);
  watcher.on('error', (err) => cb.onErrors([{ file: inbox, line: 0, level: 'error', message: `watching the inbox failed: ${(err as Error).message}` }]));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve())).then(() => {
    later(SWEEP_EVERY_MS, sweep);
    return running ?? Promise.resolve();
  });

  return {
    ready,
    idle: () => (running ? new Promise<void>((r) => idleWaiters.push(r)) : Promise.resolve()),
    close: async () => {
      closed = true;
      timers.forEach((t) => clearTimeout(t));
      timers.clear();
      await watcher.close();
      await (running ?? Promise.resolve());
    },
  };
}
