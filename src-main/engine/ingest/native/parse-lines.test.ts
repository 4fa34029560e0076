import { describe, expect, it } from 'vitest';
import { parseTraceLine } from './parse-lines';

const START = { type: 'step-start', run_id: 'r1', step_id: 's1', parent_id: null, index: 0, name: 'retrieve', step_type: 'retrieval', replay_key: 'retrieve#0', ts: 1, metadata: {} };
const END = { type: 'step-end', run_id: 'r1', step_id: 's1', ts: 2, status: 'ok', output: { text: 'x' }, error: null, usage: { tokens: 3 }, metadata: {} };

function problemOf(record: Record<string, unknown>): string | null {
  const parsed = parseTraceLine(JSON.stringify(record), 7);
  return parsed.kind === 'record' ? null : parsed.problem.message;
}

describe('parseTraceLine on step records', () => {
  it('reads well-formed step-start and step-end records, optional fields left out or null', () => {
    expect(problemOf(START)).toBeNull();
    expect(problemOf(END)).toBeNull();
    expect(problemOf({ ...START, parent_id: 's0', metadata: null })).toBeNull();
    expect(problemOf({ type: 'step-end', run_id: 'r1', step_id: 's1', ts: 2, status: 'error' })).toBeNull();
  });

  it('names the first wrong field of a step-start', () => {
    expect(problemOf({ ...START, run_id: '' })).toBe('step-start record: "run_id" must be a non-empty string');
    expect(problemOf({ ...START, step_id: 5 })).toBe('step-start record: "step_id" must be a non-empty string');
    expect(problemOf({ ...START, parent_id: 3 })).toBe('step-start record: "parent_id" must be a string');
    expect(problemOf({ ...START, name: undefined })).toBe('step-start record: "name" must be a non-empty string');
    expect(problemOf({ ...START, ts: '1' })).toBe('step-start record: "ts" must be a number');
    expect(problemOf({ ...START, metadata: [1] })).toBe('step-start record: "metadata" must be an object');
  });

  it('names the first wrong field of a step-end', () => {
    expect(problemOf({ ...END, run_id: null })).toBe('step-end record: "run_id" must be a non-empty string');
    expect(problemOf({ ...END, ts: null })).toBe('step-end record: "ts" must be a number');
    expect(problemOf({ ...END, status: 'done' })).toBe('step-end record: "status" must be one of ok, error');
    expect(problemOf({ ...END, error: 'boom' })).toBe('step-end record: "error" must be an object');
    expect(problemOf({ ...END, usage: [] })).toBe('step-end record: "usage" must be an object');
    expect(problemOf({ ...END, metadata: 4 })).toBe('step-end record: "metadata" must be an object');
  });
});
