/** Main-process side of the engine worker: request/response over postMessage, events fanned out. */
import { Worker } from 'node:worker_threads';
import type { ApiEvents, CallName, CallResult, EventName } from '../../src-shared/api';
import type { Result } from '../../src-shared/result';

export interface EngineHost {
  call<K extends CallName>(name: K, args: unknown): Promise<Result<CallResult<K>>>;
  onEvent(fn: <E extends EventName>(event: E, payload: ApiEvents[E]) => void): void;
  stop(): Promise<void>;
}

export function startEngineHost(workerFile: string, init: { home?: string; nativeBinding?: string }): EngineHost {
  const worker = new Worker(workerFile, { workerData: init });
  let nextId = 1;
  const pending = new Map<number, (r: Result<never>) => void>();
  const listeners: (<E extends EventName>(event: E, payload: ApiEvents[E]) => void)[] = [];
  worker.on('message', (msg: { id?: number; result?: Result<never>; event?: EventName; payload?: never }) => {
    if (msg.id !== undefined && msg.result) {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else if (msg.event) {
      for (const l of listeners) l(msg.event, msg.payload as never);
    }
  });
  worker.on('error', (err) => {
    for (const resolve of pending.values()) resolve({ ok: false, error: { code: 'internal', message: `engine stopped: ${err.message}` } });
    pending.clear();
  });
  return {
    call: (name, args) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve as (r: Result<never>) => void);
        worker.postMessage({ id, name, args });
      }),
    onEvent: (fn) => listeners.push(fn),
    stop: async () => {
      await worker.terminate();
    },
  };
}
