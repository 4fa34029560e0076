/**
 * Issue 12, as an attacker would try it: a trace whose command is spoofed on
 * the terminal, a run changed between showing and starting, a dropped
 * trace's command reading the user's secrets, and a dropped trace chosen as
 * the reference whose outputs become live input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../create-engine';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import type { TraceRecord } from '../../../src-shared/trace-format';
import type { ExperimentEstimate, ExperimentSummary } from '../../../src-shared/experiments';
import { displayCommand, shellQuote } from './command-approvals';
import { findReferenceRun } from './confirm-blame';
import { getRunDetail } from '../store/read-runs';
import { runProcess } from './run-process';
import { bwrapUsable, findOnPath } from './trial-sandbox';

let engine: Engine;
let scratch: string;

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-trust-'));
  engine = createEngine({ home: path.join(scratch, 'home') });
});
afterAll(() => engine.close());

function traceWith(runId: string, entry: object | null, extra: Partial<{ pipeline: string; input: unknown; pass: boolean; startTs: number }> = {}): TraceRecord[] {
  const recs = syntheticRunRecords({ runId, steps: 3, pipeline: extra.pipeline ?? 'hostile', startTs: extra.startTs });
  const start = recs[0] as unknown as Record<string, unknown>;
  if (entry) start.entry = entry;
  if (extra.input !== undefined) start.input = extra.input;
  if (extra.pass !== undefined) recs.push({ type: 'verdict', run_id: runId, pass: extra.pass } as TraceRecord);
  return recs;
}

/** Writes a trace where the SDK would (the inbox: local) or elsewhere (a downloaded file: foreign). */
async function importTrace(records: TraceRecord[], where: 'inbox' | 'elsewhere', name = `${records[0].run_id}.jsonl`): Promise<string> {
  const dir = where === 'inbox' ? engine.paths.inbox : path.join(scratch, 'downloads');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, toJsonl(records));
  const r = await engine.call('importPaths', { paths: [file] });
  if (!r.ok) throw new Error(r.error.message);
  return file;
}

async function estimate(runId: string): Promise<ExperimentEstimate> {
  const r = await engine.call('estimateExperiment', { runId, at: 's1', edit: { kind: 'output', output: 'x' }, n: 1 });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const marker = (name: string) => path.join(scratch, name);

describe('approval you can trust', () => {
  it('a command hiding behind a carriage return and ESC is shown escaped, with what really runs, and does not run unapproved', async () => {
    const hidden = marker('spoofed');
    // On a raw terminal this shows as `node bot.js`: the CR returns to column 0 and ESC[2K erases the line.
    const entry = { command: ['sh', '-c', `touch ${hidden} #\r\u001b[2Knode bot.js`], cwd: scratch };
    await importTrace(traceWith('spoof-1', entry), 'inbox');
    const e = await estimate('spoof-1');
    expect(e.approval!.shown).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(e.approval!.shown).toContain(`sh -c $'touch ${hidden} #\\r\\x1b[2Knode bot.js'`);
    expect(e.approval!.shown).toContain(`cd ${shellQuote(scratch)} && `);
    expect(e.approval_needed).toBe(true);

    const refused = await engine.call('startExperiment', { runId: 'spoof-1', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1 });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.message).toContain(e.approval!.sha.slice(0, 16));
      expect(refused.error.message).not.toMatch(/[\r\u001b]/);
    }
    expect(fs.existsSync(hidden)).toBe(false);
  });

  it('quoting is unambiguous: an ESC and the six characters \\x1b, a quote and a space, never print the same', () => {
    const shown = new Set(['\u001b', '\\x1b', "$'\\x1b'", "a b", "'a b'", 'a\u202eb', ''].map((a) => shellQuote(a)));
    expect(shown.size).toBe(7);
    expect(displayCommand({ command: ['node', 'bot.js'], env: { API_KEY: '[REDACTED]', MODE: 'fast lane' } })).toBe("env API_KEY=<yours> 'MODE=fast lane' node bot.js");
  });

  it('an approval is bound to what was shown: a run changed after the estimate is refused, and so is the old hash', async () => {
    const evil = marker('evil-ran');
    const benign = { command: [process.execPath, '-e', '0'], cwd: scratch };
    const file = await importTrace(traceWith('toctou-1', benign), 'inbox');
    const shown = await estimate('toctou-1');
    expect(shown.approval!.shown).toContain(" -e 0");
    // Before Start, a run-start appended to the inbox file replaces the entry command.
    fs.appendFileSync(file, JSON.stringify({ type: 'run-start', v: '1.0', run_id: 'toctou-1', pipeline: 'hostile', ts: 1_700_000_000_000, entry: { command: [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(evil)}, 'x')`], cwd: scratch } }) + '\n');
    await engine.call('importPaths', { paths: [file] });

    const start = { runId: 'toctou-1', at: 's1', edit: { kind: 'output' as const, output: 'x' }, n: 1, wait: true };
    const byApp = await engine.call('startExperiment', { ...start, approve: true });
    expect(byApp.ok).toBe(false);
    if (!byApp.ok) expect(byApp.error.message).toMatch(/changed after it was shown/);
    const byHash = await engine.call('startExperiment', { ...start, approvedCommand: shown.approval!.sha.slice(0, 16) });
    expect(byHash.ok).toBe(false);
    if (!byHash.ok) expect(byHash.error.code).toBe('conflict');
    expect(fs.existsSync(evil)).toBe(false);
    expect(engine.db.prepare("SELECT COUNT(*) AS n FROM experiments WHERE source_run_id = 'toctou-1'").get()).toEqual({ n: 0 });
  });
});

describe('trials in a box', () => {
  it("a trial's command gets PATH, HOME, the declared names and --env names — never API keys, cloud secrets or Traceback's home", async () => {
    const dump = marker('env-dump.json');
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      OPENAI_API_KEY: 'sk-openai-secret',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      TRACEBACK_HOME: engine.paths.home,
      MY_MODEL_KEY: 'declared-by-the-recording',
      EXTRA_ALLOWED: 'added-with-env',
    });
    try {
      const entry = {
        command: [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(dump)}, JSON.stringify(process.env))`],
        cwd: scratch,
        env: { MY_MODEL_KEY: '[REDACTED]', MODE: 'test' },
      };
      await importTrace(traceWith('env-1', entry), 'inbox');
      const e = await estimate('env-1');
      expect(e.approval!.shown).toContain('MY_MODEL_KEY=<yours>');
      expect(e.trial_env).toContain('MY_MODEL_KEY');
      expect(e.trial_env).not.toContain('ANTHROPIC_API_KEY');
      const r = await engine.call('startExperiment', {
        runId: 'env-1', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1, parallel: 1, wait: true,
        approvedCommand: e.approval!.sha, env: ['EXTRA_ALLOWED'],
      });
      expect(r.ok).toBe(true);
      const env = JSON.parse(fs.readFileSync(dump, 'utf8')) as Record<string, string>;
      for (const secret of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'TRACEBACK_HOME']) expect(env[secret]).toBeUndefined();
      expect(Object.values(env).some((v) => v.includes(engine.paths.database))).toBe(false);
      expect(env.PATH).toBe(saved.PATH);
      expect(env.MY_MODEL_KEY).toBe('declared-by-the-recording');
      expect(env.MODE).toBe('test');
      expect(env.EXTRA_ALLOWED).toBe('added-with-env');
      expect(env.TRACEBACK_REPLAY_PLAN).toMatch(/\.plan\.json$/);
      expect(env.TMPDIR.startsWith(engine.paths.experiments)).toBe(true);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    }
  }, 30_000);

  // Skips (saying why) where bubblewrap is not installed or may not create namespaces here; .ci/run installs it.
  const bwrap = findOnPath('bwrap');
  const sandboxHere = bwrap !== null && bwrapUsable(bwrap);
  if (!sandboxHere) console.log(`bubblewrap sandbox test skipped: ${bwrap ? 'bwrap cannot create a sandbox on this machine' : 'bwrap is not installed'}`);
  it.skipIf(!sandboxHere)('with bubblewrap, a trial cannot read the database or write outside its folders', async () => {
    const box = marker('box');
    fs.mkdirSync(box, { recursive: true });
    const outside = marker('written-outside');
    const probe = `
      const fs = require('fs'); const out = {};
      const tryIt = (k, f) => { try { f(); out[k] = 'allowed'; } catch (e) { out[k] = e.code || 'denied'; } };
      tryIt('readDatabase', () => fs.readFileSync(${JSON.stringify(engine.paths.database)}));
      tryIt('writeOutside', () => fs.writeFileSync(${JSON.stringify(outside)}, 'x'));
      tryIt('writeTmp', () => fs.writeFileSync(require('path').join(process.env.TMPDIR, 'x'), 'x'));
      tryIt('writeInbox', () => fs.writeFileSync(${JSON.stringify(path.join(engine.paths.inbox, 'probe.tmp'))}, 'x'));
      fs.writeFileSync('probe.json', JSON.stringify(out));`;
    await importTrace(traceWith('box-1', { command: [process.execPath, '-e', probe], cwd: box }), 'inbox');
    const e = await estimate('box-1');
    expect(e.warnings.join(' ')).not.toMatch(/no OS sandbox/);
    const r = await engine.call('startExperiment', { runId: 'box-1', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1, parallel: 1, wait: true, approvedCommand: e.approval!.sha });
    expect(r.ok).toBe(true);
    const seen = JSON.parse(fs.readFileSync(path.join(box, 'probe.json'), 'utf8')) as Record<string, string>;
    expect(seen.readDatabase).toBe('ENOENT');
    expect(seen.writeOutside).not.toBe('allowed');
    expect(fs.existsSync(outside)).toBe(false);
    expect(seen.writeTmp).toBe('allowed');
    expect(seen.writeInbox).toBe('allowed');
    fs.rmSync(path.join(engine.paths.inbox, 'probe.tmp'), { force: true });
  }, 30_000);

  it('with "working_copy" on, a trial runs in a private copy: what it writes never reaches the recorded folder', async () => {
    const project = marker('project');
    fs.mkdirSync(path.join(project, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(project, 'config.json'), '{"mode":"recorded"}');
    fs.writeFileSync(path.join(project, 'node_modules', 'dep', 'index.js'), 'module.exports = 1');
    const report = marker('copy-report.json');
    const script = `
      const fs = require('fs');
      fs.writeFileSync('config.json', '{"mode":"changed by the trial"}');
      fs.writeFileSync('output.txt', 'x');
      fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify({ cwd: process.cwd(), dep: fs.existsSync('node_modules/dep/index.js') }));`;
    fs.writeFileSync(engine.paths.trialSettings, JSON.stringify({ working_copy: true, writable: [scratch] }));
    try {
      await importTrace(traceWith('copy-1', { command: [process.execPath, '-e', script], cwd: project }), 'inbox');
      const e = await estimate('copy-1');
      const r = await engine.call('startExperiment', { runId: 'copy-1', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1, parallel: 1, wait: true, approvedCommand: e.approval!.sha });
      expect(r.ok).toBe(true);
      const seen = JSON.parse(fs.readFileSync(report, 'utf8')) as { cwd: string; dep: boolean };
      expect(seen.cwd).not.toBe(project);
      expect(seen.dep).toBe(true);
      expect(fs.readFileSync(path.join(project, 'config.json'), 'utf8')).toBe('{"mode":"recorded"}');
      expect(fs.existsSync(path.join(project, 'output.txt'))).toBe(false);
      // The copies are removed with the trial's temp folder.
      expect(fs.existsSync(seen.cwd)).toBe(false);
    } finally {
      fs.rmSync(engine.paths.trialSettings, { force: true });
    }
  }, 30_000);

  it('Traceback variables cannot be added with --env', async () => {
    const r = await engine.call('startExperiment', { runId: 'env-1', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1, env: ['TRACEBACK_HOME'] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/never passed to a trial/);
  });

  it('a trial writing without end, or eating memory, is killed at its cap', async () => {
    const log = marker('cap.log');
    const chatty = await runProcess({ argv: [process.execPath, '-e', 'const fs=require("fs"); for(;;) fs.writeSync(1, "x".repeat(65536))'], cwd: scratch, env: { PATH: process.env.PATH }, timeoutMs: 20_000, logFile: log, outputCapBytes: 1_000_000 });
    expect(chatty.overLimit).toMatch(/output cap/);
    expect(fs.statSync(log).size).toBeLessThanOrEqual(1_000_000);
    if (process.platform === 'linux') {
      const hungry = await runProcess({ argv: [process.execPath, '-e', 'const a=[]; for(;;) a.push(Buffer.alloc(8e6, 1))'], cwd: scratch, env: { PATH: process.env.PATH }, timeoutMs: 20_000, logFile: log, memoryCapBytes: 200e6 });
      expect(hungry.overLimit).toMatch(/memory/);
      expect(hungry.timedOut).toBe(false);
    }
  }, 45_000);
});

describe('references and ids you can trust', () => {
  it('a dropped passing trace with the same pipeline and a future timestamp is never the reference; another input is not either', async () => {
    const input = { question: 'which cities?' };
    await importTrace(traceWith('ref-failing', { command: ['true'] }, { pipeline: 'refs', input, pass: false }), 'inbox');
    await importTrace(traceWith('ref-other-question', { command: ['true'] }, { pipeline: 'refs', input: { question: 'other' }, pass: true }), 'inbox');
    await importTrace(traceWith('ref-dropped', { command: ['true'] }, { pipeline: 'refs', input, pass: true, startTs: Date.now() + 86_400_000 }), 'elsewhere');
    const failing = getRunDetail(engine.db, 'ref-failing');
    expect(getRunDetail(engine.db, 'ref-dropped').run.origin).toBe('foreign');
    expect(findReferenceRun(engine.db, failing.run)).toBeNull();
    const r = await engine.call('confirmBlame', { runId: 'ref-failing', n: 1, candidates: ['s1'] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/same input.*--reference/s);

    await importTrace(traceWith('ref-good', { command: ['true'] }, { pipeline: 'refs', input, pass: true }), 'inbox');
    expect(findReferenceRun(engine.db, failing.run)?.run.run_id).toBe('ref-good');
  });

  it('a foreign run needs an approval of its own content every time, never a remembered one', async () => {
    const entry = { command: [process.execPath, '-e', '0'], cwd: scratch };
    await importTrace(traceWith('local-twin', entry, { pipeline: 'twins' }), 'inbox');
    const local = await estimate('local-twin');
    const ok = await engine.call('startExperiment', { runId: 'local-twin', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1, parallel: 1, wait: true, approvedCommand: local.approval!.sha });
    expect(ok.ok && (ok.value as ExperimentSummary).status).toBe('done');
    expect((await estimate('local-twin')).approval_needed).toBe(false);

    await importTrace(traceWith('foreign-twin', entry, { pipeline: 'twins' }), 'elsewhere');
    const foreign = await estimate('foreign-twin');
    expect(foreign.approval!.foreign).toBe(true);
    expect(foreign.approval_needed).toBe(true);
    expect(foreign.approval!.shown).toMatch(/imported from .*not written by the local SDK/);
    const unbound = await engine.call('startExperiment', { runId: 'foreign-twin', at: 's1', edit: { kind: 'output', output: 'x' }, n: 1 });
    expect(unbound.ok).toBe(false);
  }, 30_000);
});
