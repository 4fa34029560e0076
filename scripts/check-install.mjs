// The install check (`npm run test:install`, part of `npm test`): what a new user does, outside this checkout.
// Packs the TypeScript SDK (npm pack) and builds the Python SDK's wheel, installs both into a temporary project
// made with mktemp, records a run with each using plain `node` / `python3`, and asserts that the checkout's CLI
// (`node <checkout>/bin/tb.mjs list --json`, no explicit import) lists both runs under their pipeline names.
// It also sends an OTLP/HTTP protobuf export from the real OpenTelemetry exporter to `tb serve`'s receiver, and
// forks a Python run recorded with a custom PYTHONPATH from a shell without it (the trials must pass).
//
// The check is a list of named steps run in order; each prints one line, and the first that fails stops the check
// with a non-zero exit naming it (its temp folder is kept for a look). To add a step, add an entry to `steps`
// before "the CLI lists every recorded run": a step that records a run pushes {pipeline, runId} onto
// `ctx.expectedRuns` and the listing step checks it too. Helpers: `ctx.exec(command, args, options)` runs a
// command and returns its stdout (throws with its output on failure), `ctx.write(path, text)`, `ctx.tb(args)`.
//
// Offline: the SDK has no dependencies (npm install --offline), and the wheel is built without an index from the
// interpreter's own setuptools plus `wheel` from Debian's python3-wheel-whl (/usr/share/python-wheels).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const checkout = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'tb-install-check-'));
const wheelLinks = process.env.TB_WHEEL_LINKS ?? '/usr/share/python-wheels';

/** Runs a command; returns its stdout. A failure throws an error carrying the command's exit status and output. */
function exec(command, args, options = {}) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, ...options, env: { ...ctx.env, ...options.env } });
  } catch (error) {
    const output = [error.stdout, error.stderr].filter(Boolean).join('\n').trim().split('\n').slice(-25).join('\n');
    const how = error.status != null ? `exited ${error.status}` : (error.signal ? `killed by ${error.signal}` : error.message);
    throw new Error(`\`${[command, ...args].join(' ')}\` ${how}${output ? `\n${output}` : ''}`);
  }
}

const ctx = {
  checkout,
  work,
  /** TRACEBACK_HOME for every recording and the CLI: a temp folder, never the user's ~/.traceback. */
  home: join(work, 'home'),
  /** The user's project, outside the checkout. */
  project: join(work, 'my-project'),
  env: { ...process.env, TRACEBACK_HOME: join(work, 'home'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  /** Runs recorded by earlier steps that `tb list` must show: {pipeline, runId}. */
  expectedRuns: [],
  exec,
  write: (path, text) => writeFileSync(path, text),
  /** The checkout's CLI, run from the project folder as a user outside the checkout would. */
  tb: (args) => exec(process.execPath, [join(checkout, 'bin', 'tb.mjs'), ...args], { cwd: ctx.project }),
  venv: join(work, 'venv'),
  /** The venv's bin first on PATH, so `python3` is the venv's interpreter, as after `source venv/bin/activate`. */
  venvEnv: () => ({ PATH: `${join(work, 'venv', 'bin')}${delimiter}${process.env.PATH}`, VIRTUAL_ENV: join(work, 'venv') }),
};

/** Parses the run id a pipeline prints on its last line (`run <id>`). */
function recordedRunId(stdout, what) {
  const match = /^run (\S+)$/m.exec(stdout);
  if (!match) throw new Error(`${what} did not print its run id; it printed:\n${stdout}`);
  return match[1];
}

const tsPipeline = `import { pipeline, step, currentRun } from 'tracebackai';

const retrieve = step('retrieve', 'retrieval', (question) => ['Returns are accepted within 30 days.']);
const answer = await pipeline('install-check-ts', async (run) => {
  const passages = retrieve('How long do I have to return a laptop?');
  run.verdict(passages[0].includes('30 days'), { detail: 'must state the refund window' });
  console.log('run ' + currentRun().runId);
  return passages[0];
}, { input: { question: 'How long do I have to return a laptop?' } });
console.log(answer);
`;

const tsTypedPipeline = `import { pipeline, runStep, type RunHandle } from 'tracebackai';

const total = await pipeline('install-check-ts-compiled', async (run: RunHandle) => {
  const sum = await runStep('add', 'tool', async () => 2 + 3);
  console.log('run ' + run.runId);
  return sum;
});
console.log(total);

// Never called: proves the package's types are real (a step type they do not know is an error), not a silent any.
export function typesAreReal() {
  // @ts-expect-error 'no-such-type' is not a step type
  return runStep('bad', 'no-such-type', async () => 0);
}
`;

const pyPipeline = `import tracebackai as tb

@tb.trace(type="retrieval")
def retrieve(question):
    return ["Returns are accepted within 30 days."]

@tb.pipeline("install-check-py")
def answer(question):
    passages = retrieve(question)
    tb.verdict("30 days" in passages[0], detail="must state the refund window")
    print("run " + tb.current_run().run_id)
    return passages[0]

print(answer("How long do I have to return a laptop?"))
`;

// A pipeline recorded with PYTHONPATH=lib: its trials must get that path, or every one dies with ModuleNotFoundError.
const pyForkLib = `def answer_from(passages):
    return "You can return it within " + passages[0].split("within ", 1)[1]
`;

const pyForkPipeline = `import tracebackai as tb
from policy_lib import answer_from

@tb.trace(type="retrieval")
def retrieve(question):
    return ["Returns are accepted within 14 days."]

@tb.trace(type="llm")
def write(passages):
    return answer_from(passages)

@tb.pipeline("install-check-fork-py")
def answer(question):
    text = write(retrieve(question))
    tb.verdict("30 days" in text, detail="must state the 30-day window")
    print("run " + tb.current_run().run_id)
    return text

answer("How long do I have to return a laptop?")
`;

/** The first line a child prints on stdout (tb serve --json-ready's ready line). */
function firstLine(child, timeoutMs) {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs / 1000} s; stderr: ${err.trim()}`)), timeoutMs);
    child.stdout.on('data', (b) => {
      out += b;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolvePromise(out.slice(0, nl));
      }
    });
    child.stderr.on('data', (b) => (err += b));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tb serve exited ${code} before it was ready; stderr: ${err.trim()}`));
    });
  });
}

const steps = [
  {
    name: 'pack the TypeScript SDK (npm pack sdk/typescript)',
    run() {
      mkdirSync(join(work, 'packages'), { recursive: true });
      const packed = JSON.parse(exec('npm', ['pack', '--json', '--pack-destination', join(work, 'packages')], { cwd: join(checkout, 'sdk', 'typescript') }));
      ctx.tsTarball = join(work, 'packages', packed[0].filename);
      const files = packed[0].files.map((f) => f.path);
      for (const needed of ['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']) {
        if (!files.includes(needed)) throw new Error(`the tarball lacks ${needed}`);
      }
      const leaked = files.filter((f) => f.startsWith('src/') || f.includes('.test.') || f.includes('test-support'));
      if (leaked.length) throw new Error(`the tarball ships sources or tests: ${leaked.join(', ')}`);
      return `${packed[0].filename}, ${files.length} files`;
    },
  },
  {
    name: 'build the Python SDK wheel (pip wheel sdk/python, offline)',
    run() {
      // Built from a copy, so the checkout gets no build/ or egg-info, in the venv the user's pipeline will use
      // (one venv: creating one costs seconds). Its setuptools is the interpreter's own (Debian's patched one
      // only fits Debian's python3); `wheel` comes from the folder of wheels.
      const source = join(work, 'python-src');
      for (const entry of ['pyproject.toml', 'README.md', 'tracebackai']) cpSync(join(checkout, 'sdk', 'python', entry), join(source, entry), { recursive: true });
      if (!existsSync(wheelLinks) || !readdirSync(wheelLinks).some((f) => f.startsWith('wheel-'))) {
        throw new Error(`no wheel package in ${wheelLinks}: install Debian's python3-wheel-whl (or set TB_WHEEL_LINKS to a folder holding wheel-*.whl)`);
      }
      exec('python3', ['-m', 'venv', ctx.venv]);
      const pip = join(ctx.venv, 'bin', 'pip');
      exec(pip, ['install', '-q', '--no-index', '--find-links', wheelLinks, 'setuptools>=61', 'wheel']);
      exec(pip, ['wheel', '-q', '--no-index', '--no-build-isolation', '--no-deps', '-w', join(work, 'packages'), source]);
      ctx.pyWheel = join(work, 'packages', readdirSync(join(work, 'packages')).find((f) => f.endsWith('.whl')));
      return ctx.pyWheel.split('/').pop();
    },
  },
  {
    name: 'install the TypeScript SDK tarball into a new project (npm install --offline)',
    run() {
      mkdirSync(ctx.project, { recursive: true });
      ctx.write(join(ctx.project, 'package.json'), JSON.stringify({ name: 'my-pipeline', private: true, type: 'module' }, null, 2));
      exec('npm', ['install', '--offline', '--no-audit', '--no-fund', ctx.tsTarball], { cwd: ctx.project });
      if (!existsSync(join(ctx.project, 'node_modules', 'tracebackai', 'dist', 'index.js'))) throw new Error('node_modules/tracebackai/dist/index.js is missing after install');
      return ctx.project;
    },
  },
  {
    name: 'record a TypeScript run with plain node (pipeline.mjs imports "tracebackai")',
    run() {
      ctx.write(join(ctx.project, 'pipeline.mjs'), tsPipeline);
      const out = exec(process.execPath, ['pipeline.mjs'], { cwd: ctx.project });
      ctx.expectedRuns.push({ pipeline: 'install-check-ts', runId: recordedRunId(out, 'pipeline.mjs') });
      return ctx.expectedRuns.at(-1).runId;
    },
  },
  {
    name: 'type-check a TypeScript pipeline against the package (tsc, NodeNext) and run the output with node',
    run() {
      ctx.write(join(ctx.project, 'pipeline.ts'), tsTypedPipeline);
      // skipLibCheck: checking @types/node is most of this step's time; the @ts-expect-error in pipeline.ts
      // fails the compile if the package's types ever degrade to `any`.
      ctx.write(join(ctx.project, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: 'build', types: ['node'], typeRoots: [join(checkout, 'node_modules', '@types')] },
        files: ['pipeline.ts'],
      }, null, 2));
      exec(process.execPath, [join(checkout, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: ctx.project });
      const out = exec(process.execPath, [join('build', 'pipeline.js')], { cwd: ctx.project });
      ctx.expectedRuns.push({ pipeline: 'install-check-ts-compiled', runId: recordedRunId(out, 'build/pipeline.js') });
      return ctx.expectedRuns.at(-1).runId;
    },
  },
  {
    name: 'install the Python SDK wheel into a venv (pip install --no-index)',
    run() {
      exec(join(ctx.venv, 'bin', 'pip'), ['install', '-q', '--no-index', ctx.pyWheel]);
      const version = exec('python3', ['-c', 'import tracebackai; print(tracebackai.__version__, tracebackai.__file__)'], { cwd: ctx.project, env: ctx.venvEnv() }).trim();
      if (!version.includes(ctx.venv)) throw new Error(`python3 imported tracebackai from outside the venv: ${version}`);
      return version.split(' ')[0];
    },
  },
  {
    name: 'record a Python run with plain python3 (pipeline.py imports tracebackai)',
    run() {
      ctx.write(join(ctx.project, 'pipeline.py'), pyPipeline);
      const out = exec('python3', ['pipeline.py'], { cwd: ctx.project, env: ctx.venvEnv() });
      ctx.expectedRuns.push({ pipeline: 'install-check-py', runId: recordedRunId(out, 'pipeline.py') });
      return ctx.expectedRuns.at(-1).runId;
    },
  },
  {
    name: 'record a Python run whose module is found only through PYTHONPATH (lib/)',
    run() {
      mkdirSync(join(ctx.project, 'lib'), { recursive: true });
      ctx.write(join(ctx.project, 'lib', 'policy_lib.py'), pyForkLib);
      ctx.write(join(ctx.project, 'pipeline_fork.py'), pyForkPipeline);
      const out = exec('python3', ['pipeline_fork.py'], { cwd: ctx.project, env: { ...ctx.venvEnv(), PYTHONPATH: join(ctx.project, 'lib') } });
      ctx.forkSource = recordedRunId(out, 'pipeline_fork.py');
      ctx.expectedRuns.push({ pipeline: 'install-check-fork-py', runId: ctx.forkSource });
      return ctx.forkSource;
    },
  },
  {
    name: 'send an OTLP/HTTP protobuf export with the real OTel exporter to tb serve\'s receiver',
    async run() {
      const served = spawn(process.execPath, [join(checkout, 'bin', 'tb.mjs'), 'serve', '--port', '0', '--otlp-port', '0', '--json-ready'], {
        cwd: ctx.project,
        env: ctx.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const ready = await firstLine(served, 60_000);
        const endpoint = JSON.parse(ready).otlp_endpoint;
        if (!endpoint) throw new Error(`tb serve did not start its OTLP receiver: ${ready}`);
        const sent = JSON.parse(exec(process.execPath, [join(checkout, 'scripts', 'send-otlp-sample.mjs'), '--endpoint', endpoint, '--service', 'install-check-otlp'], { cwd: ctx.project }));
        ctx.expectedRuns.push({ pipeline: 'install-check-otlp', runId: sent.trace_id });
        return `${sent.spans} spans to ${endpoint}`;
      } finally {
        served.kill('SIGTERM');
      }
    },
  },
  {
    name: 'the CLI lists every recorded run (node <checkout>/bin/tb.mjs list --json, no import)',
    run() {
      const listed = JSON.parse(ctx.tb(['list', '--json']));
      const missing = ctx.expectedRuns.filter((e) => !listed.some((r) => r.run_id === e.runId && r.pipeline === e.pipeline));
      if (missing.length) {
        const seen = listed.map((r) => `${r.pipeline} ${r.run_id}`).join('; ') || 'no runs';
        throw new Error(`not listed: ${missing.map((m) => `${m.pipeline} ${m.runId}`).join(', ')} (listed: ${seen})`);
      }
      return `${ctx.expectedRuns.length} runs: ${ctx.expectedRuns.map((e) => e.pipeline).join(', ')}`;
    },
  },
  {
    name: 'fork the PYTHONPATH run from a shell without PYTHONPATH: trials run where it ran, the fix passes, tb list is unchanged',
    run() {
      const before = JSON.parse(ctx.tb(['list', '--json'])).map((r) => r.run_id).sort();
      const edit = ['--at', 'retrieve#0', '--output', JSON.stringify(['Returns are accepted within 30 days.']), '-n', '2'];
      // What a user does: read the command the trace asks to run, then approve exactly that (its hash).
      const estimate = JSON.parse(ctx.tb(['fork', ctx.forkSource, ...edit, '--estimate', '--json']));
      if (!estimate.approval?.shown.includes('PYTHONPATH=')) throw new Error(`the recorded command does not carry PYTHONPATH: ${estimate.approval?.shown}`);
      const s = JSON.parse(ctx.tb(['fork', ctx.forkSource, ...edit, '--approve-command', estimate.approval.sha, '--json']));
      const arms = `treatment ${s.treatment.passed}/${s.treatment.trials}, control ${s.control.passed}/${s.control.trials}`;
      if (s.treatment.crashed || s.control.crashed || s.diverged) {
        const detail = JSON.parse(ctx.tb(['experiment', s.experiment_id, '--json']));
        const crashed = detail.trials.filter((t) => t.outcome !== 'pass' && t.outcome !== 'fail');
        throw new Error(`${arms}; trials that did not run through: ${crashed.map((t) => `${t.arm} #${t.trial} ${t.outcome}: ${t.detail}\n${t.stderr_tail ?? ''}`).join('\n')}`);
      }
      if (s.treatment.passed !== 2 || s.control.passed !== 0) throw new Error(`expected the fixed retrieval to pass (2/2) and the recorded one to fail (0/2): ${arms}`);
      const after = JSON.parse(ctx.tb(['list', '--json'])).map((r) => r.run_id).sort();
      if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`tb list changed after the fork: ${before.length} runs before, ${after.length} after`);
      return `${arms}, p = ${s.p_value.toFixed(3)}; tb list still shows ${after.length} runs`;
    },
  },
];

const started = Date.now();
for (const [index, step] of steps.entries()) {
  const t0 = Date.now();
  try {
    const detail = await step.run(ctx);
    console.log(`ok   ${index + 1}/${steps.length} ${step.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
  } catch (error) {
    console.error(`FAIL ${index + 1}/${steps.length} ${step.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n${error.message}`);
    console.error(`install check failed at step "${step.name}"; its files are kept in ${work}`);
    process.exit(1);
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`install check passed: ${steps.length} steps in ${((Date.now() - started) / 1000).toFixed(1)} s`);
