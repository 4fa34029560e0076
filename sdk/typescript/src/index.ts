/**
 * Traceback TypeScript SDK: record pipeline runs as native trace files
 * (src-shared/trace-format.ts) in `$TRACEBACK_HOME/inbox`, and replay them
 * under a fork experiment's plan. See docs/sdk.md and docs/replay.md.
 */
export { pipeline, tracedRun, currentRun, defaultEntry, type PipelineOptions, type RunHandle, type VerdictOptions } from './pipeline';
export { step, runStep, currentStep, type WrapOptions, type InlineOptions } from './step';
export { executeStep, type StepOptions, type StepSpec, type Extracted, type EndStep } from './execute-step';
export type { StepHandle } from './run-state';
export { score, scoreRun, verdict } from './scores';
export { configure, resetConfiguration, defaultHome, type RecordingOptions } from './config';
export { registerMock, unregisterMock, clearMocks } from './mocks';
export { now, random, id } from './nondeterminism';
export { SideEffectRefusedError, ModelChangeRefusedError, ReplayedError } from './errors';
export { fingerprintJson, canonicalJson } from './fingerprint';
export { REDACTED, type RedactionOptions } from './redaction';
export { SDK_NAME, SDK_VERSION } from './version';
export { wrapAnthropic, type WrapAnthropicOptions } from './providers/anthropic';
export { wrapOpenAICompatible, type WrapOpenAIOptions } from './providers/openai-compatible';
export { REPLAY_PLAN_ENV, type ReplayPlan, type ReplayStepEntry, type ForkEdit } from '../../../src-shared/replay-plan';

import { now, random, id } from './nondeterminism';
/** `tb.now()`, `tb.random()`, `tb.id()`: recorded values, replayed in a fork's prefix. */
export const tb = { now, random, id };
