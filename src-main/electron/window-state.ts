/** Remembers the window's bounds between launches (userData/window-state.json). */
import fs from 'node:fs';
import path from 'node:path';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

const DEFAULT: WindowState = { width: 1400, height: 900 };

export function loadWindowState(dir: string): WindowState {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'window-state.json'), 'utf8')) as WindowState;
    if (typeof s.width === 'number' && typeof s.height === 'number' && s.width >= 400 && s.height >= 300) return s;
  } catch {
    // first launch or unreadable state: defaults
  }
  return DEFAULT;
}

export function saveWindowState(dir: string, s: WindowState): void {
  try {
    fs.writeFileSync(path.join(dir, 'window-state.json'), JSON.stringify(s));
  } catch {
    // losing the window position is not worth an error dialog
  }
}
