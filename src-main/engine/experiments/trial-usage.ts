/**
 * What one forked run cost and what its replay saved, read from the run
 * itself: steps the SDK marked `replayed` made no call; the others ran live.
 * The fork step (and, with an output edit, its children) is neither prefix
 * nor live work, so it is left out of "saved".
 */
import type { RunDetail } from '../../../src-shared/model';
import { CALL_STEP_TYPES, stepTokens } from './estimate-experiment';

export interface TrialUsage {
  tokens: number;
  cost_usd: number;
  calls: number;
  replayed_steps: number;
  saved_calls: number;
  saved_tokens: number;
}

export function trialUsage(detail: RunDetail, forkStepKey: string): TrialUsage {
  const u: TrialUsage = { tokens: 0, cost_usd: 0, calls: 0, replayed_steps: 0, saved_calls: 0, saved_tokens: 0 };
  for (const s of detail.steps) {
    const isCall = CALL_STEP_TYPES.has(s.type);
    if (s.replayed) {
      if (s.replay_key === forkStepKey || s.replay_key.startsWith(forkStepKey + '/')) continue;
      u.replayed_steps += 1;
      if (isCall) u.saved_calls += 1;
      u.saved_tokens += stepTokens(s);
    } else {
      if (isCall) u.calls += 1;
      u.tokens += stepTokens(s);
      u.cost_usd += s.usage?.cost_usd ?? 0;
    }
  }
  return u;
}
