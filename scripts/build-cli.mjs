// `npm run build:cli` (also run by `npm install`'s prepare and by `npm run build`): bundles the CLI into
// out/cli/tb.mjs with esbuild, so that `tb` starts without compiling ~260 TypeScript modules through tsx on every
// command (~1.2 s and ~38 MB more; measured in docs/benchmarks.md). Packages stay outside the bundle (they load
// from node_modules as before). Beside it, out/cli/sources.json lists every source file the bundle was built
// from with its modification time: bin/tb.mjs runs the bundle only while each is unchanged, and the sources
// through tsx otherwise, so an edit in a checkout is never hidden by a stale bundle.
// `--out DIR` writes the bundle elsewhere (a test builds one of its own; DIR must be inside the checkout, where
// the packages resolve). Without esbuild (an install without devDependencies) nothing is built and tb runs
// from its sources.
import { existsSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const outDir = outFlag > 0 ? resolve(process.argv[outFlag + 1]) : join(root, 'out', 'cli');
let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.log('esbuild is not installed (no devDependencies): tb runs from its TypeScript sources through tsx');
  process.exit(0);
}
mkdirSync(outDir, { recursive: true });
// A file saved after this instant may have been read by esbuild before the save: it is recorded as changed, so
// the bundle is not taken for current until it is built again.
const startedAt = Date.now();
const result = await build({
  entryPoints: [join(root, 'src-main', 'cli', 'tb.ts')],
  outfile: join(outDir, 'tb.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
});
const sources = {};
// The bundled sources, and the files that steer how esbuild reads them.
const inputs = [...Object.keys(result.metafile.inputs), ...['package.json', 'tsconfig.json', 'tsconfig.base.json'].filter((f) => existsSync(join(root, f)))];
for (const input of inputs) {
  const mtimeMs = statSync(join(root, input)).mtimeMs;
  sources[input] = mtimeMs < startedAt - 1000 ? mtimeMs : -1;
}
writeFileSync(join(outDir, 'sources.json'), JSON.stringify({ sources }));
console.log(`${join(outDir, 'tb.mjs')}: ${Object.keys(result.metafile.inputs).length} source files bundled`);
