import { createContext, useContext } from 'react';
import type { ApiClient } from '../../../src-shared/client';
import { createHttpClient } from './http-client';
import { readSessionToken } from './session-token';

/** Electron's preload already exposes an ApiClient; in a browser we speak HTTP to `tb serve`. */
export function connectApi(): ApiClient | { error: string } {
  if (window.traceback) return window.traceback;
  let storage: Storage | null = null;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = null;
  }
  const token = readSessionToken(window.location, storage);
  if (!token) return { error: 'No session token. Open the link that `tb serve` printed (it ends in ?token=…).' };
  return createHttpClient(token);
}

export const ApiContext = createContext<ApiClient | null>(null);

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}
