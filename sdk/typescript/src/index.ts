/**
 * Traceback TypeScript SDK: record pipeline runs as native trace files
 * (trace-format.ts) in `$TRACEBACK_HOME/inbox`, and replay them
 * under a fork experiment's plan. See docs/sdk.md and docs/replay.md.
 */
export { pipeline, tracedRun, currentRun, defaultEntry, type PipelineOptions, type RunHandle, type VerdictOptions } from './pipeline.js';
export { step, runStep, currentStep, type WrapOptions, type InlineOptions } from './step.js';
export { executeStep, type StepOptions, type StepSpec, type Extracted, type EndStep } from './execute-step.js';
export type { StepHandle } from './run-state.js';
export { score, scoreRun, verdict } from './scores.js';
export { configure, resetConfiguration, defaultHome, type RecordingOptions } from './config.js';
export { registerMock, unregisterMock, clearMocks } from './mocks.js';
export { now, random, id } from './nondeterminism.js';
export { SideEffectRefusedError, ModelChangeRefusedError, ReplayedError } from './errors.js';
export { fingerprintJson, canonicalJson } from './fingerprint.js';
export { REDACTED, type RedactionOptions } from './redaction.js';
export { SDK_NAME, SDK_VERSION } from './version.js';
export { wrapAnthropic, type WrapAnthropicOptions } from './providers/anthropic.js';
export { wrapOpenAICompatible, type WrapOpenAIOptions } from './providers/openai-compatible.js';
export { REPLAY_PLAN_ENV, type ReplayPlan, type ReplayStepEntry, type ForkEdit } from './replay-plan.js';
export { pitfalls, withPitfalls, guardCheck, setGuardTask, loadMotifs, type Pitfall, type GuardFinding, type KnownMotif, type PitfallOptions } from './pitfalls.js';
export { GuardBlockedError, type GuardMode } from './guard.js';

import { now, random, id } from './nondeterminism.js';
/** `tb.now()`, `tb.random()`, `tb.id()`: recorded values, replayed in a fork's prefix. */
export const tb = { now, random, id };
