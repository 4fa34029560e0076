/** Errors the SDK itself throws into user code (only in replay mode). */
import type { TraceError } from './trace-format.js';

/** A live step marked side_effect in a forked run, with no mock registered. */
export class SideEffectRefusedError extends Error {
  constructor(readonly stepName: string, readonly replayKey: string) {
    super(
      `traceback: side-effect step "${stepName}" (${replayKey}) may not run live in a forked run; register a mock with registerMock("${stepName}", fn)`,
    );
    this.name = 'SideEffectRefusedError';
  }
}

/** A live step in a forked run configured a model other than the recorded one. */
export class ModelChangeRefusedError extends Error {
  constructor(readonly replayKey: string, readonly recorded: string, readonly configured: string) {
    super(
      `traceback: step ${replayKey} was recorded with model "${recorded}" but is configured with "${configured}"; the replay plan does not allow a model change`,
    );
    this.name = 'ModelChangeRefusedError';
  }
}

/** Re-thrown in place of an error a step raised in the recording. */
export class ReplayedError extends Error {
  readonly status?: number;
  readonly replayed = true;
  constructor(recorded: TraceError) {
    super(recorded.message);
    this.name = recorded.type || 'Error';
    if (typeof recorded.status === 'number') this.status = recorded.status;
    if (recorded.stack) this.stack = recorded.stack;
  }
}
