/**
 * The bundled CLI (scripts/build-cli.mjs → out/cli/tb.mjs) and the launcher
 * that picks it (bin/tb.mjs): the bundle must behave as the sources do, and a
 * source changed since the build must never be hidden by a stale bundle.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// Inside the checkout (.tmp is ignored by git), where the bundle's packages resolve from node_modules.
fs.mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
const WORK = fs.mkdtempSync(path.join(ROOT, '.tmp', 'cli-bundle-'));
afterAll(() => fs.rmSync(WORK, { recursive: true, force: true }));

function run(file: string, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [file, ...args], { cwd: WORK, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the bundled CLI', () => {
  it('records the demo and lists it, each run able to start its demo source again (no demo runs on its own at startup)', () => {
    const out = path.join(WORK, 'bundle');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-cli.mjs'), '--out', out], { cwd: ROOT, encoding: 'utf8' });
    const home = path.join(WORK, 'home');
    const tb = path.join(out, 'tb.mjs');
    const demo = run(tb, ['demo'], { TRACEBACK_HOME: home });
    expect(demo.stderr).toBe('');
    expect(demo.status).toBe(0);
    const listed = run(tb, ['list', '--json'], { TRACEBACK_HOME: home });
    expect(listed.status).toBe(0);
    const runs = JSON.parse(listed.stdout) as { run_id: string; pipeline: string }[];
    expect(new Set(runs.map((r) => r.pipeline))).toEqual(new Set(['support-bot', 'research-team']));
    const shown = run(tb, ['show', runs[0].run_id, '--json'], { TRACEBACK_HOME: home });
    const entry = (JSON.parse(shown.stdout) as { run: { entry: { command: string[]; cwd: string } } }).run.entry;
    // The command a fork experiment runs: the demo's own source, from the checkout (not the bundle).
    expect(entry.cwd).toBe(fs.realpathSync(ROOT));
    const script = entry.command.find((a) => a.startsWith('src-main/demo/'));
    expect(script).toMatch(/^src-main\/demo\/(support-bot|research-team)\.ts$/);
    expect(fs.existsSync(path.join(ROOT, script!))).toBe(true);
  }, 120_000);
});

describe('bin/tb.mjs', () => {
  // A package of its own: the real launcher beside a stand-in bundle and a stand-in source that say which ran.
  const pkg = path.join(WORK, 'launcher');
  const source = path.join(pkg, 'src-main/cli/tb.ts');
  const sources = path.join(pkg, 'out/cli/sources.json');
  fs.mkdirSync(path.dirname(source), { recursive: true });
  fs.mkdirSync(path.dirname(sources), { recursive: true });
  fs.mkdirSync(path.join(pkg, 'bin'));
  fs.copyFileSync(path.join(ROOT, 'bin/tb.mjs'), path.join(pkg, 'bin/tb.mjs'));
  fs.writeFileSync(path.join(pkg, 'out/cli/tb.mjs'), "console.log('bundle');\n");
  fs.writeFileSync(source, "console.log('source');\n");
  const built = new Date('2026-01-02T03:04:05Z');
  fs.utimesSync(source, built, built);
  const writeSources = () => fs.writeFileSync(sources, JSON.stringify({ sources: { 'src-main/cli/tb.ts': fs.statSync(source).mtimeMs } }));
  const which = (env: Record<string, string> = {}) => run(path.join(pkg, 'bin/tb.mjs'), [], env).stdout.trim();

  it('runs the bundle while every source it was built from is unchanged', () => {
    writeSources();
    expect(which()).toBe('bundle');
  });

  it('runs the sources once one of them changed since the build, and the bundle again once rebuilt', () => {
    writeSources();
    const later = new Date(built.getTime() + 1000);
    fs.utimesSync(source, later, later);
    expect(which()).toBe('source');
    writeSources();
    expect(which()).toBe('bundle');
    fs.utimesSync(source, built, built);
  });

  it('runs the sources when no bundle was built, when the bundle is gone, or when TB_FROM_SOURCE=1', () => {
    writeSources();
    expect(which({ TB_FROM_SOURCE: '1' })).toBe('source');
    const bundle = path.join(pkg, 'out/cli/tb.mjs');
    fs.renameSync(bundle, `${bundle}.away`);
    expect(which()).toBe('source');
    fs.renameSync(`${bundle}.away`, bundle);
    fs.rmSync(sources);
    expect(which()).toBe('source');
  });
});
