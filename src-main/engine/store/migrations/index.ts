import { migration0001 } from './0001-initial';
import { migration0002 } from './0002-analysis-cache';
import { migration0003 } from './0003-experiments';
import { migration0004 } from './0004-run-assertions';
import { migration0005 } from './0005-failure-motifs';
import { migration0006 } from './0006-trial-diagnostics';
import { migration0007 } from './0007-run-state';
import { migration0008 } from './0008-step-signatures';
import { migration0009 } from './0009-runs-by-source-file';
import { migration0010 } from './0010-run-step-counts-and-step-text';
import { migration0011 } from './0011-step-text-short-queries';
import { migration0012 } from './0012-steps-skeleton-index';
import { migration0013 } from './0013-runs-with-verdict';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** In order; a migration's version is its position (1-based). Never edit one that shipped: add a new one. */
export const MIGRATIONS: Migration[] = [migration0001, migration0002, migration0003, migration0004, migration0005, migration0006, migration0007, migration0008, migration0009, migration0010, migration0011, migration0012, migration0013];
