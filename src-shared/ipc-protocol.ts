/**
 * Electron IPC transport. The preload exposes exactly one object,
 * `window.traceback`, with `invoke(name, args)` and `on(event, fn)`.
 * Calls travel on channel `traceback:call`, events on `traceback:event`.
 */
import type { ApiClient } from './client';

export const IPC_CALL_CHANNEL = 'traceback:call';
export const IPC_EVENT_CHANNEL = 'traceback:event';

declare global {
  interface Window {
    traceback?: ApiClient;
  }
}
