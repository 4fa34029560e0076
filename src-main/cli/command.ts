/** What every `tb` subcommand provides. Exit codes: 0 ok, 1 check failed, 2 bad usage or bad input. */
import type { ParsedArgs, FlagSpec } from './args';
import type { Engine } from '../engine/create-engine';

export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

export interface CommandContext {
  args: ParsedArgs;
  /** Opens the engine on TRACEBACK_HOME (lazily; `tb --help` needs none). */
  engine(opts?: { watch?: boolean }): Engine;
  /** A line for the terminal: every control, bidi and invisible character in it is escaped (tab and newline pass). */
  out(text: string): void;
  /** The same, on stderr. */
  err(text: string): void;
  /**
   * A document asked for on stdout (`tb report`, `tb export` without -o): written as it is when stdout is a pipe
   * or a file, escaped as `out` is when it is a terminal (the document quotes trace text).
   */
  content(text: string): void;
  /**
   * A status line that replaces the previous one (null clears it): shown on a
   * terminal's stderr only, so pipes, logs and --json output never hold it.
   */
  progress(text: string | null): void;
  json(value: unknown): void;
}

export interface Command {
  name: string;
  usage: string;
  summary: string;
  flags: FlagSpec;
  /**
   * The command reads runs: new inbox lines (written by the SDK since the last
   * look) are imported first, offset-tracked so nothing new costs little;
   * `--no-sync` skips it.
   */
  readsRuns?: boolean;
  run(ctx: CommandContext): Promise<number>;
}
