/**
 * What the demo pipelines share as standalone scripts: detecting that a file
 * was started directly, and the entry command recorded in each run so that a
 * fork experiment can start the same pipeline again.
 */
import { realpathSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntryCommand } from '../../src-shared/trace-format';

/** The checkout root (two levels above this folder). */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function isMainModule(metaUrl: string): boolean {
  const argv1 = process.argv[1];
  if (!argv1) return false;
  try {
    return realpathSync(fileURLToPath(metaUrl)) === realpathSync(argv1);
  } catch {
    return false;
  }
}

/**
 * `node --import tsx <script> ...args`, run from the checkout root. Under
 * Electron, process.execPath is the Electron binary, so plain `node` is used.
 */
export function demoEntry(metaUrl: string, args: string[]): EntryCommand {
  const script = relative(REPO_ROOT, fileURLToPath(metaUrl));
  const node = process.versions.electron ? 'node' : process.execPath;
  return { command: [node, '--import', 'tsx', script, ...args], cwd: REPO_ROOT };
}
