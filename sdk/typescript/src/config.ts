/**
 * Process-wide SDK settings. Each pipeline() call may override them; the
 * resolved settings travel with the run so concurrent runs never share state.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_FIELD_BYTES } from './json-safe.js';
import { makeRedactor, type RedactionOptions, type Redactor } from './redaction.js';

export interface RecordingOptions {
  /** Traceback home; the inbox is `<home>/inbox`. Default: $TRACEBACK_HOME, else ~/.traceback. */
  home?: string;
  /** Write run files here instead of `<home>/inbox`. */
  inbox?: string;
  /** Cap on one serialised input/output/metadata field, in UTF-8 bytes (default 1 MB). */
  maxFieldBytes?: number;
  /** false turns redaction off; an object adds or replaces patterns and key names. */
  redact?: boolean | RedactionOptions;
  /** false runs pipelines and steps without recording anything. */
  enabled?: boolean;
}

export interface ResolvedRecording {
  inbox: string;
  maxFieldBytes: number;
  redactor: Redactor;
  enabled: boolean;
}

let globalOptions: RecordingOptions = {};
let cached: { key: RecordingOptions; value: ResolvedRecording } | null = null;

/** Set defaults for every later pipeline in this process (merged with earlier calls). */
export function configure(opts: RecordingOptions): void {
  globalOptions = { ...globalOptions, ...opts };
  cached = null;
}

/** For tests: back to the defaults. */
export function resetConfiguration(): void {
  globalOptions = {};
  cached = null;
}

export function defaultHome(): string {
  const env = process.env.TRACEBACK_HOME;
  return env && env.trim() ? env : join(homedir(), '.traceback');
}

export function resolveRecording(overrides: RecordingOptions = {}): ResolvedRecording {
  const o = { ...globalOptions, ...overrides };
  // Building the redactor compiles a dozen regexes; reuse it while the redaction settings are unchanged.
  const redactKey = o.redact ?? true;
  const redactor = cached && cached.key.redact === redactKey ? cached.value.redactor : makeRedactor(redactKey);
  const value: ResolvedRecording = {
    // TRACEBACK_HOME is read on every run, so a test or a child process may change it at any time.
    inbox: o.inbox ?? join(o.home ?? defaultHome(), 'inbox'),
    maxFieldBytes: o.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES,
    redactor,
    enabled: o.enabled ?? true,
  };
  cached = { key: { redact: redactKey }, value };
  return value;
}
