/** The `tb serve` transport of the API contract (see src-shared/http-protocol.ts). */
import type { ApiEvents, CallArgs, CallName, CallResult, EventName } from '../../../src-shared/api';
import { EVENT_NAMES } from '../../../src-shared/api';
import type { ApiClient } from '../../../src-shared/client';
import { CALL_PREFIX, EVENTS_PATH, TOKEN_HEADER } from '../../../src-shared/http-protocol';
import type { Result } from '../../../src-shared/result';

type Listener = (payload: unknown) => void;

export function createHttpClient(token: string, origin = ''): ApiClient {
  const listeners = new Map<EventName, Set<Listener>>();
  let source: EventSource | null = null;

  function emit(event: EventName, payload: unknown): void {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  }

  function ensureEventSource(): void {
    if (source) return;
    source = new EventSource(`${origin}${EVENTS_PATH}?token=${encodeURIComponent(token)}`);
    source.addEventListener('open', () => {
      // Events sent before the stream opened (the first fetches race the
      // connection) or while it was reconnecting are lost, so every open is
      // treated as "everything may have changed".
      emit('data-changed', { runIds: [] });
    });
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (message) => {
        let payload: unknown;
        try {
          payload = JSON.parse((message as MessageEvent<string>).data);
        } catch {
          return;
        }
        emit(name, payload);
      });
    }
  }

  return {
    async invoke<K extends CallName>(name: K, args: CallArgs<K>): Promise<Result<CallResult<K>>> {
      let response: Response;
      try {
        response = await fetch(`${origin}${CALL_PREFIX}${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
          body: JSON.stringify(args ?? {}),
        });
      } catch (error) {
        return { ok: false, error: { code: 'internal', message: `The Traceback server did not answer (${String(error)}).` } };
      }
      if (response.status === 401) {
        return { ok: false, error: { code: 'bad_request', message: 'The server refused the session token; reopen the link that `tb serve` printed.' } };
      }
      try {
        return (await response.json()) as Result<CallResult<K>>;
      } catch {
        return { ok: false, error: { code: 'internal', message: `Unexpected answer from the server (HTTP ${response.status}).` } };
      }
    },
    on<E extends EventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void {
      ensureEventSource();
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as Listener);
      return () => set.delete(listener as Listener);
    },
  };
}
