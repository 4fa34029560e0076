/**
 * The one API contract. Electron IPC, the local HTTP server of `tb serve` and
 * the in-process CLI are three transports of this map; the renderer never
 * knows which one it talks to.
 *
 * Every call has a zod schema for its arguments (validated by each transport
 * before the engine sees them) and a result type.
 */
import { z } from 'zod';
import type { ImportError, ImportReport, RunDetail, RunSummary } from './model';
import type { BlameResult, DiffResult } from './analysis';

const runId = z.string().min(1).max(200);

export const RUN_FILTERS = ['all', 'failed', 'blamed', 'healthy', 'running', 'forked', 'imported'] as const;
export type RunFilter = (typeof RUN_FILTERS)[number];

export const REPORT_FORMATS = ['md', 'html', 'json', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const callSchemas = {
  listRuns: z
    .object({
      filter: z.enum(RUN_FILTERS).optional(),
      search: z.string().max(500).optional(),
      pipeline: z.string().max(500).optional(),
      limit: z.number().int().min(1).max(100_000).optional(),
    })
    .strict(),
  getRun: z.object({ runId }).strict(),
  importPaths: z.object({ paths: z.array(z.string().min(1).max(4096)).min(1).max(1000) }).strict(),
  listImportErrors: z.object({ limit: z.number().int().min(1).max(10_000).optional() }).strict(),
  blameRun: z.object({ runId, expected: z.string().max(100_000).optional() }).strict(),
  diffRuns: z.object({ runA: runId, runB: runId }).strict(),
  renderReport: z.object({ runId, format: z.enum(['md', 'html', 'json']) }).strict(),
  getInfo: z.object({}).strict(),
};

export type CallName = keyof typeof callSchemas;
export type CallArgs<K extends CallName> = z.infer<(typeof callSchemas)[K]>;

export interface EngineInfo {
  home: string;
  database: string;
  inbox: string;
  version: string;
  watching: boolean;
}

export interface CallResults {
  listRuns: RunSummary[];
  getRun: RunDetail;
  importPaths: ImportReport;
  listImportErrors: ImportError[];
  blameRun: BlameResult;
  diffRuns: DiffResult;
  renderReport: { format: 'md' | 'html' | 'json'; content: string; filename: string };
  getInfo: EngineInfo;
}

export type CallResult<K extends CallName> = CallResults[K];

/** Handlers the engine implements; every transport dispatches to these. */
export type ApiHandlers = { [K in CallName]: (args: CallArgs<K>) => CallResult<K> | Promise<CallResult<K>> };

/** Events the engine pushes to every connected client. */
export interface ApiEvents {
  /** Runs were added or changed; clients refetch what they show. */
  'data-changed': { runIds: string[] };
  /** New import errors (file and line) were recorded. */
  'import-errors': { errors: ImportError[] };
  /** Desktop only: a menu command the UI carries out (e.g. File → Export Report…). */
  menu: { action: 'export-report' };
}
export type EventName = keyof ApiEvents;
export const EVENT_NAMES: EventName[] = ['data-changed', 'import-errors', 'menu'];

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(callSchemas, name);
}
