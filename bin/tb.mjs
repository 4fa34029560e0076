#!/usr/bin/env node
// `tb …` from a checkout or an installed package. Runs the bundled CLI (out/cli/tb.mjs, scripts/build-cli.mjs)
// when it was built from the sources as they are now; otherwise (not built, or a source file changed since) the
// TypeScript sources through tsx, which starts ~1 s slower. TB_FROM_SOURCE=1 always takes the sources.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function bundleIsCurrent() {
  if (process.env.TB_FROM_SOURCE === '1') return false;
  try {
    const { sources } = JSON.parse(readFileSync(`${root}out/cli/sources.json`, 'utf8'));
    for (const [file, mtimeMs] of Object.entries(sources)) if (statSync(`${root}${file}`).mtimeMs !== mtimeMs) return false;
    return Object.keys(sources).length > 0 && existsSync(`${root}out/cli/tb.mjs`);
  } catch {
    return false;
  }
}

if (bundleIsCurrent()) {
  await import('../out/cli/tb.mjs');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src-main/cli/tb.ts');
}
