import { useCallback, useState } from 'react';

const PREFIX = 'traceback.pane.';

function read(key: string, initial: number, min: number, max: number): number {
  try {
    const v = Number(window.localStorage.getItem(PREFIX + key));
    return Number.isFinite(v) && v > 0 ? Math.max(min, Math.min(max, v)) : initial;
  } catch {
    return initial;
  }
}

/** A pane size the user dragged, kept in localStorage under `traceback.pane.<key>` and clamped to [min, max]. */
export function useStoredSize(key: string, initial: number, min: number, max: number): [number, (next: number) => void] {
  const [size, setSize] = useState(() => read(key, initial, min, max));
  const update = useCallback(
    (next: number) => {
      const clamped = Math.round(Math.max(min, Math.min(max, next)));
      setSize(clamped);
      try {
        window.localStorage.setItem(PREFIX + key, String(clamped));
      } catch {
        // Storage full or disabled: the size still applies for this session.
      }
    },
    [key, min, max],
  );
  return [size, update];
}
