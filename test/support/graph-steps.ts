/** A minimal healthy step for graph tests: only id, parent and start order vary. */
import type { Step } from '../../src-shared/model';

export function step(id: string, parent: string | null, index: number): Step {
  return {
    run_id: 'r',
    step_id: id,
    parent_id: parent,
    index,
    name: id,
    type: 'generic',
    replay_key: id,
    status: 'ok',
    input: null,
    output: null,
    error: null,
    started_at: index,
    ended_at: index + 1,
    duration_ms: 1,
    model: null,
    usage: null,
    metadata: {},
    user_scores: [],
    replayed: false,
    extra: {},
  };
}
