/**
 * The checkout (or installed package) root: the nearest folder above this
 * module whose package.json is Traceback's. Paths to files that are not code
 * (out/renderer, the demo scripts a fork experiment starts again) are taken
 * from here, not from `import.meta.url` relative to one source file: in the
 * bundled CLI (out/cli/tb.mjs, scripts/build-cli.mjs) every module shares the
 * bundle's URL, so a path counted from a source file's folder points elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'traceback';

let root: string | null = null;

export function packageRoot(): string {
  if (root !== null) return root;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; ) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === PACKAGE_NAME) return (root = dir);
    } catch {
      // No package.json here (or not JSON): look one folder up.
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json named "${PACKAGE_NAME}" above ${start}`);
    dir = up;
  }
}

/** `relative` (a path inside the package, with / separators) as an absolute path. */
export function inPackage(relative: string): string {
  return path.join(packageRoot(), ...relative.split('/'));
}
