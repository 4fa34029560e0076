/**
 * The command a fork experiment runs, shown to the person approving it the
 * way the engine shows it (command-approvals.ts displayCommand): each argument
 * quoted for a POSIX shell when it needs to be, so what is read is what runs.
 */
import type { EntryCommand } from '../../../src-shared/trace-format';

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function commandLine(argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}

/** Environment assignments the trace adds; values the SDK redacted are not passed on, so they are marked. */
export function envLines(env: Record<string, string> | null | undefined): { name: string; value: string; redacted: boolean }[] {
  return Object.entries(env ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({ name, value, redacted: value === '[REDACTED]' }));
}

/** A run can be forked only when its trace says how to start it again. */
export function hasEntry(entry: EntryCommand | null | undefined): entry is EntryCommand {
  return !!entry && Array.isArray(entry.command) && entry.command.length > 0 && typeof entry.command[0] === 'string' && entry.command[0] !== '';
}
