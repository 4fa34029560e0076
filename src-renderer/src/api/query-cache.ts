/**
 * A tiny cache of engine results, one entry per (call, args). Entries are
 * refetched when the engine says data changed, keeping the previous value on
 * screen meanwhile so that live updates never flash an empty view.
 */
import type { CallArgs, CallName, CallResult } from '../../../src-shared/api';
import type { ApiError } from '../../../src-shared/result';
import type { ApiClient } from '../../../src-shared/client';

export interface QueryState<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
}

interface Entry {
  name: CallName;
  args: unknown;
  state: QueryState<unknown>;
  subscribers: Set<() => void>;
  generation: number;
  evictTimer: ReturnType<typeof setTimeout> | null;
}

function queryKey(name: CallName, args: unknown): string {
  return `${name}:${JSON.stringify(args ?? {})}`;
}

/** Which cached calls a data-changed event touches. An empty runIds list means "anything". */
export function isAffectedBy(name: CallName, args: unknown, runIds: string[]): boolean {
  if (runIds.length === 0) return true;
  const a = (args ?? {}) as Record<string, unknown>;
  switch (name) {
    case 'getRun':
    case 'getRunSkeleton':
    case 'getStepPayloads':
    case 'findSteps':
    case 'blameRun':
    case 'getStepScores':
    case 'renderReport':
      return runIds.includes(String(a.runId));
    case 'diffRuns':
      return runIds.includes(String(a.runA)) || runIds.includes(String(a.runB));
    default:
      return true;
  }
}

const EVICT_AFTER_MS = 30_000;

export class QueryCache {
  private entries = new Map<string, Entry>();

  constructor(private readonly api: ApiClient) {}

  snapshot<K extends CallName>(name: K, args: CallArgs<K>): QueryState<CallResult<K>> {
    return this.entry(name, args).state as QueryState<CallResult<K>>;
  }

  subscribe<K extends CallName>(name: K, args: CallArgs<K>, onChange: () => void): () => void {
    const entry = this.entry(name, args);
    if (entry.evictTimer) clearTimeout(entry.evictTimer);
    entry.evictTimer = null;
    entry.subscribers.add(onChange);
    if (entry.state.data === undefined && !entry.state.loading && !entry.state.error) void this.fetch(entry);
    return () => {
      entry.subscribers.delete(onChange);
      if (entry.subscribers.size === 0) {
        entry.evictTimer = setTimeout(() => this.entries.delete(queryKey(entry.name, entry.args)), EVICT_AFTER_MS);
      }
    };
  }

  /** Every answer held for `name`, whatever its arguments: what is already known without asking again. */
  answers<K extends CallName>(name: K): CallResult<K>[] {
    const out: CallResult<K>[] = [];
    for (const entry of this.entries.values()) if (entry.name === name && entry.state.data !== undefined) out.push(entry.state.data as CallResult<K>);
    return out;
  }

  invalidate(runIds: string[]): void {
    for (const [key, entry] of this.entries) {
      if (!isAffectedBy(entry.name, entry.args, runIds)) continue;
      if (entry.subscribers.size > 0) void this.fetch(entry);
      else this.entries.delete(key);
    }
  }

  /** Starts fetching an answer about to be wanted, unless it is here or on its way. */
  prefetch<K extends CallName>(name: K, args: CallArgs<K>): void {
    const entry = this.entry(name, args);
    if (entry.state.data === undefined && !entry.state.loading) void this.fetch(entry);
  }

  refetch<K extends CallName>(name: K, args: CallArgs<K>): void {
    void this.fetch(this.entry(name, args));
  }

  private entry(name: CallName, args: unknown): Entry {
    const key = queryKey(name, args);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        name,
        args,
        state: { data: undefined, error: null, loading: false },
        subscribers: new Set(),
        generation: 0,
        evictTimer: null,
      };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private set(entry: Entry, state: QueryState<unknown>): void {
    entry.state = state;
    for (const notify of [...entry.subscribers]) notify();
  }

  private async fetch(entry: Entry): Promise<void> {
    // A newer fetch supersedes an older one still in flight (live updates can overlap).
    const generation = ++entry.generation;
    this.set(entry, { ...entry.state, loading: true });
    const result = await this.api.invoke(entry.name, entry.args as never);
    if (generation !== entry.generation) return;
    if (result.ok) this.set(entry, { data: result.value, error: null, loading: false });
    else this.set(entry, { data: entry.state.data, error: result.error, loading: false });
  }
}
