/**
 * better-sqlite3 inside Electron needs a build for Electron's ABI, while
 * node_modules keeps the Node build for the CLI and tests (toolchain.md).
 * scripts/build-electron-sqlite.ts puts the Electron build in
 * native/electron-<modules version>/better_sqlite3.node; packaged apps carry it
 * as an extra resource.
 */
import fs from 'node:fs';
import path from 'node:path';

export function electronNativeBinding(appRoot: string, resourcesPath: string | undefined): string | undefined {
  const dir = `electron-${process.versions.modules}`;
  const candidates = [
    resourcesPath ? path.join(resourcesPath, 'native', dir, 'better_sqlite3.node') : '',
    path.join(appRoot, 'native', dir, 'better_sqlite3.node'),
  ].filter(Boolean);
  return candidates.find((c) => fs.existsSync(c));
}
