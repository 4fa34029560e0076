/**
 * `tb approvals`: the commands from traces that the user approved (each for
 * one pipeline), and revoking them. A revoked command needs a new approval
 * (with the hash printed beside it) before it runs again. An approval's ID
 * is the hash of the command alone (what is remembered); the approval hash a
 * user passes to `tb fork --approve-command` also covers the run's content,
 * so it differs.
 */
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { listApprovals, revokeApprovals } from '../../engine/experiments/command-approvals';
import { isoTime, safeText, table } from '../format-text';

export const approvalsCommand: Command = {
  name: 'approvals',
  usage: 'tb approvals [--revoke ID | --revoke all] [--json]',
  summary: 'list the trace commands you approved for fork experiments, or revoke an approval',
  flags: { values: ['revoke'] },
  async run(ctx) {
    if (ctx.args.positional.length) throw new UsageError(`unexpected argument "${safeText(ctx.args.positional[0])}"`);
    const db = ctx.engine().db;
    const revoke = ctx.args.values.revoke;
    if (revoke !== undefined) {
      if (revoke !== 'all' && !/^[0-9a-f]{6,64}$/i.test(revoke)) throw new UsageError(`--revoke takes an approval ID as listed (6 to 64 hex digits) or "all", got "${safeText(revoke.slice(0, 80))}"`);
      const n = revokeApprovals(db, revoke);
      if (ctx.args.booleans.has('json')) ctx.json({ revoked: n });
      else ctx.out(n ? `revoked ${n} approval(s): those commands need a new approval before they run` : `no approval matches ${safeText(revoke)}`);
      return EXIT_OK;
    }
    const list = listApprovals(db);
    if (ctx.args.booleans.has('json')) {
      ctx.json(list);
      return EXIT_OK;
    }
    if (list.length === 0) {
      ctx.out('No approved commands.');
      return EXIT_OK;
    }
    ctx.out(
      table(
        list.map((a) => [a.command_hash.slice(0, 16), safeText(a.pipeline), isoTime(a.approved_at), safeText(a.shown)]),
        ['ID', 'PIPELINE', 'APPROVED', 'COMMAND'],
      ),
    );
    return EXIT_OK;
  },
};
