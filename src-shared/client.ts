/** What a renderer (or any client) holds: a transport-agnostic view of the contract. */
import type { ApiEvents, CallArgs, CallName, CallResult, EventName } from './api';
import type { Result } from './result';

export interface ApiClient {
  invoke<K extends CallName>(name: K, args: CallArgs<K>): Promise<Result<CallResult<K>>>;
  on<E extends EventName>(event: E, listener: (payload: ApiEvents[E]) => void): () => void;
}
