/**
 * `tb doctor`: a full, read-only check of the Traceback home (database
 * integrity, schema, inbox) with advice. Works on a database that every other
 * command refuses. Exit 0 healthy, 1 problems found.
 */
import type { Command } from '../command';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../command';
import { homePaths } from '../../engine/home';
import { checkHome } from '../../engine/store/check-database';
import { safeText } from '../format-text';

export const doctorCommand: Command = {
  name: 'doctor',
  usage: 'tb doctor [--json]',
  summary: 'check the database (full integrity check) and the inbox, and say what to do about any problem',
  flags: {},
  async run(ctx) {
    const report = checkHome(homePaths());
    if (ctx.args.booleans.has('json')) ctx.json(report);
    else {
      ctx.out(`Traceback home ${safeText(report.home)}`);
      for (const f of report.findings) {
        ctx.out(`  ${f.level === 'ok' ? 'ok     ' : f.level === 'warning' ? 'warning' : 'ERROR  '} ${f.check}: ${safeText(f.detail)}`);
        if (f.advice) ctx.out(`          → ${safeText(f.advice)}`);
      }
      ctx.out(report.healthy ? 'No problems found.' : 'Problems found (see above).');
    }
    return report.healthy ? EXIT_OK : EXIT_CHECK_FAILED;
  },
};
