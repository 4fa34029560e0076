/** The engine's pushed events, typed by the contract; transports subscribe and forward. */
import type { ApiEvents, EventName } from '../../src-shared/api';

type Listener = <E extends EventName>(event: E, payload: ApiEvents[E]) => void;

export class EventHub {
  private listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: ApiEvents[E]): void {
    for (const l of this.listeners) {
      try {
        l(event, payload);
      } catch (err) {
        // One broken transport must not stop the others.
        console.error(`[traceback] event listener failed: ${(err as Error).message}`);
      }
    }
  }
}
