import type { Command } from '../command';
import { importCommand } from './import';
import { listCommand } from './list';
import { showCommand } from './show';
import { blameCommand } from './blame';
import { diffCommand } from './diff';
import { gateCommand } from './gate';
import { reportCommand } from './report';
import { serveCommand } from './serve';
import { demoCommand } from './demo';
import { exportCommand } from './export';
import { forkCommand } from './fork';
import { experimentCommand, experimentsCommand } from './experiments';
import { selfcheckCommand } from './selfcheck';
import { approvalsCommand } from './approvals';
import { doctorCommand } from './doctor';
import { markCommand } from './mark';

export const COMMANDS: Command[] = [importCommand, listCommand, showCommand, blameCommand, markCommand, diffCommand, gateCommand, reportCommand, exportCommand, serveCommand, demoCommand, forkCommand, experimentsCommand, experimentCommand, selfcheckCommand, approvalsCommand, doctorCommand];
