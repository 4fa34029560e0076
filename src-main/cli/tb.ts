#!/usr/bin/env node
/**
 * `tb`, the Traceback CLI. Read commands take --json and then print exactly
 * one JSON document on stdout. Exit codes: 0 ok, 1 check failed, 2 bad usage
 * or bad input (with a message on stderr).
 */
import { createEngine, type Engine } from '../engine/create-engine';
import { EngineError } from '../../src-shared/result';
import { parseArgs, UsageError } from './args';
import { EXIT_BAD_INPUT, type CommandContext } from './command';
import { COMMANDS } from './commands/index';
import { CliFailure } from './unwrap';
import { importPaths } from '../engine/ingest/import-paths';
import { oneLine, safeJson, safeLine, safeText } from './format-text';
import { deferredBlameLine } from './commands/import';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'tb — Traceback: offline forensics for LLM-agent runs',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Data lives in $TRACEBACK_HOME (default ~/.traceback): traces.db and inbox/.',
    'Run `tb COMMAND --help` for a command\'s options. Exit codes: 0 ok, 1 check failed, 2 bad usage or input.',
  ].join('\n');
}

/** A typo in settings.json is named in one line on stderr (stdout stays one JSON document with --json). */
function warnAboutSettings(engine: Engine): Engine {
  const problems = engine.analysis.settingsProblems();
  if (problems.length) process.stderr.write(`tb: warning: ${engine.paths.settings}: ${problems.length} setting(s) ignored, their defaults used (${problems.join('; ')})\n`);
  return engine;
}

/**
 * Runs the SDK wrote into the inbox since the last look, imported before a
 * command reads (only `tb serve` and the app watch the inbox). New problems
 * in inbox files are summed up in one line on stderr, when first found, and
 * never fail the command: `tb import` shows them all.
 */
function syncInbox(engine: Engine): void {
  const report = importPaths(engine.db, [engine.paths.inbox], { final: false, skipUnchanged: true });
  const deferred = report.changedRuns.length ? engine.analysis.refresh(report.changedRuns) : [];
  for (const d of deferred) process.stderr.write(`tb: note: ${deferredBlameLine(d)}\n`);
  const errors = report.newErrors.filter((e) => e.level === 'error');
  if (errors.length) {
    const first = errors[0];
    process.stderr.write(`tb: warning: ${errors.length} problem(s) in inbox files, first ${safeLine(first.file)}:${first.line}: ${oneLine(first.message, 160)} (tb import ${safeLine(engine.paths.inbox)} lists them)\n`);
  }
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder (create the folder first)',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EEXIST: 'already exists',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

let progressShown = false;

/** On a terminal, one status line on stderr, rewritten in place and cut to the terminal's width. */
function showProgress(text: string): void {
  if (!process.stderr.isTTY) return;
  const width = Math.max(20, (process.stderr.columns || 80) - 1);
  process.stderr.write(`\r\x1b[2K${[...text].slice(0, width).join('')}`);
  progressShown = true;
}

function clearProgress(): void {
  if (!progressShown) return;
  process.stderr.write('\r\x1b[2K');
  progressShown = false;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name ? 0 : EXIT_BAD_INPUT;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`tb: unknown command "${name}"\n\n${help()}\n`);
    return EXIT_BAD_INPUT;
  }
  let engine: Engine | null = null;
  try {
    const args = parseArgs(rest, command.readsRuns ? { ...command.flags, booleans: [...(command.flags.booleans ?? []), 'no-sync'] } : command.flags);
    if (args.booleans.has('help')) {
      process.stdout.write(`usage: ${command.usage}\n${command.summary}\n`);
      return 0;
    }
    const ctx: CommandContext = {
      args,
      engine: (opts) => {
        if (engine) return engine;
        engine = warnAboutSettings(createEngine({ watch: opts?.watch ?? false }));
        if (command.readsRuns && !args.booleans.has('no-sync')) syncInbox(engine);
        return engine;
      },
      // Trace text reaches these lines from many places (run ids, names, messages): escaped here, once for all.
      out: (t) => process.stdout.write(safeText(t) + '\n'),
      err: (t) => {
        clearProgress();
        process.stderr.write(safeText(t) + '\n');
      },
      content: (t) => process.stdout.write((process.stdout.isTTY ? safeText(t) : t) + '\n'),
      progress: (t) => (t === null ? clearProgress() : showProgress(t)),
      json: (v) => process.stdout.write(safeJson(v) + '\n'),
    };
    return await command.run(ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`tb ${name}: ${err.message}\nusage: ${command.usage}\n`);
      return EXIT_BAD_INPUT;
    }
    if (err instanceof CliFailure) {
      process.stderr.write(`tb ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof EngineError) {
      process.stderr.write(`tb ${name}: ${err.message}\n`);
      return EXIT_BAD_INPUT;
    }
    // A file the user named that cannot be read or written: one line naming it, never a stack trace.
    const fsError = err as NodeJS.ErrnoException;
    if (typeof fsError?.code === 'string' && /^E[A-Z]+$/.test(fsError.code) && typeof fsError.path === 'string') {
      process.stderr.write(`tb ${name}: ${safeLine(fsError.path)}: ${FS_REASONS[fsError.code] ?? fsError.code}\n`);
      return EXIT_BAD_INPUT;
    }
    process.stderr.write(`tb ${name}: unexpected error: ${(err as Error).stack ?? err}\n`);
    return EXIT_BAD_INPUT;
  } finally {
    clearProgress();
    await (engine as Engine | null)?.close();
  }
}

// `tb list | head` closes stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
