/**
 * What the demo pipelines share as standalone scripts: detecting that a file
 * was started directly, and the entry command recorded in each run so that a
 * fork experiment can start the same pipeline again.
 */
import { realpathSync } from 'node:fs';
import type { EntryCommand } from '../../src-shared/trace-format';
import { inPackage, packageRoot } from '../platform/package-root';

/**
 * Whether the process was started on `script` (its path in the checkout, e.g. `src-main/demo/support-bot.ts`).
 * Named rather than taken from `import.meta.url`: in the bundled CLI every module has the bundle's URL, and each
 * demo's main block would run whenever `tb` starts.
 */
export function isMainModule(script: string): boolean {
  const argv1 = process.argv[1];
  if (!argv1) return false;
  try {
    return realpathSync(inPackage(script)) === realpathSync(argv1);
  } catch {
    return false;
  }
}

/**
 * `node --import tsx <script> ...args`, run from the checkout root (`script` as isMainModule takes it). Under
 * Electron, process.execPath is the Electron binary, so plain `node` is used.
 */
export function demoEntry(script: string, args: string[]): EntryCommand {
  const node = process.versions.electron ? 'node' : process.execPath;
  return { command: [node, '--import', 'tsx', script, ...args], cwd: packageRoot() };
}
