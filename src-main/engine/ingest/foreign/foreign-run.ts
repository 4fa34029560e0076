/**
 * The shape every foreign parser produces before it becomes native records:
 * one ForeignRun per trace (OTLP trace id, LangChain root run, transcript),
 * its steps in whatever order the file listed them, parents referenced by id.
 */
import type { Json, StepType, TokenUsage, TraceError } from '../../../../src-shared/trace-format';

export type ForeignFormat = 'otlp' | 'langchain' | 'chat-transcript';

export interface ForeignStep {
  id: string;
  /** As recorded; may name a step that is not in the file (an orphan). */
  parentId: string | null;
  name: string;
  type: StepType;
  /** Epoch ms. */
  start: number;
  /** Epoch ms; null when the source recorded no end. */
  end: number | null;
  status: 'ok' | 'error';
  input?: Json;
  output?: Json;
  error?: TraceError;
  model?: string;
  usage?: TokenUsage;
  /** Goes on step-start: what was known when the step began, plus the source's raw attributes. */
  startMetadata: Record<string, Json>;
  /** Goes on step-end: finish reason and other result facts. */
  endMetadata: Record<string, Json>;
  /** A replay key recorded by the source (a Traceback export), kept instead of a computed one. */
  replayKey?: string;
  /** Where the step was found in the file, for messages. */
  position: { line: number; path: string };
  /**
   * What the whole-run rules read of input and output, for a step kept without them (the streaming
   * import holds one of these per span instead of the span's payloads).
   */
  summary?: StepSummary;
}

interface StepSummary {
  /** The call text of input and output as duplicate detection compares them (long texts as a digest). */
  inputText: string;
  outputText: string;
  hasOutput: boolean;
  /** Error-shaped lines of input and output (upstream-errors.ts). */
  errorLines: string[];
}

export interface ForeignRun {
  runId: string;
  pipeline: string;
  format: ForeignFormat;
  steps: ForeignStep[];
  /** Overrides the root step's input/output as the run's own (a Traceback export carries them). */
  input?: Json;
  output?: Json;
  /** Run-level facts kept as extra fields on run-start (resource attributes, file name...). */
  extra: Record<string, Json>;
  /** False when the source itself says the run did not finish. */
  finished: boolean;
}

export interface ForeignIssue {
  line: number;
  message: string;
  level: 'error' | 'warning';
}
