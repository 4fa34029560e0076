/** Runs one `tb` command in this process, as tb.ts does: usage errors and engine failures become exit codes. */
import { parseArgs, UsageError } from '../../src-main/cli/args';
import type { Command, CommandContext } from '../../src-main/cli/command';
import { safeJson, safeText } from '../../src-main/cli/format-text';
import { CliFailure } from '../../src-main/cli/unwrap';
import type { Engine } from '../../src-main/engine/create-engine';

export interface CommandOutcome {
  code: number;
  stdout: string[];
  stderr: string[];
  /** Every status line shown, in order (null: cleared). */
  progress: (string | null)[];
  json: unknown;
}

export async function runCommand(engine: Engine, command: Command, argv: string[]): Promise<CommandOutcome> {
  const out: CommandOutcome = { code: 0, stdout: [], stderr: [], progress: [], json: undefined };
  try {
    const ctx: CommandContext = {
      args: parseArgs(argv, command.flags),
      engine: () => engine,
      out: (t) => out.stdout.push(safeText(t)),
      err: (t) => out.stderr.push(safeText(t)),
      // As to a pipe: documents go out as they are.
      content: (t) => out.stdout.push(t),
      progress: (t) => out.progress.push(t),
      json: (v) => {
        out.json = v;
        out.stdout.push(safeJson(v));
      },
    };
    out.code = await command.run(ctx);
    return out;
  } catch (err) {
    if (err instanceof UsageError || err instanceof CliFailure) {
      out.code = err instanceof CliFailure ? err.exitCode : 2;
      out.stderr.push(err.message);
      return out;
    }
    throw err;
  }
}
