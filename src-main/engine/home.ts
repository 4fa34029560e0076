/** Where Traceback keeps its data: TRACEBACK_HOME (default ~/.traceback) with traces.db and inbox/. */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

export interface HomePaths {
  home: string;
  database: string;
  inbox: string;
  settings: string;
  experiments: string;
  /** Optional limits and extra environment names for trial processes (experiments/trial-environment.ts). */
  trialSettings: string;
}

export function homePaths(home?: string): HomePaths {
  const root = path.resolve(home ?? process.env.TRACEBACK_HOME ?? path.join(os.homedir(), '.traceback'));
  return {
    home: root,
    database: path.join(root, 'traces.db'),
    inbox: path.join(root, 'inbox'),
    settings: path.join(root, 'settings.json'),
    experiments: path.join(root, 'experiments'),
    trialSettings: path.join(root, 'trials.json'),
  };
}

export function ensureHome(paths: HomePaths): void {
  fs.mkdirSync(paths.inbox, { recursive: true });
}
