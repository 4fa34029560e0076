/**
 * Clock, random numbers and ids that a pipeline asks the SDK for. Each value
 * is recorded in the scope that asked (a step's metadata.nondeterminism, or
 * the run-end record for the pipeline body), and a forked run gets the
 * recorded values back while it replays the prefix, so the prefix's inputs
 * fingerprint exactly as they did.
 */
import { randomUUID } from 'node:crypto';
import type { NondeterminismLog } from './replay-plan.js';
import { traceContext } from './run-state.js';

function draw<K extends keyof NondeterminismLog>(kind: K, live: () => NonNullable<NondeterminismLog[K]>[number]): NonNullable<NondeterminismLog[K]>[number] {
  const ctx = traceContext.getStore();
  if (!ctx) return live();
  const scope = ctx.step ? ctx.step.replayKey : '';
  const replayed = ctx.run.replay?.take(scope, kind);
  const expected = kind === 'id' ? 'string' : 'number';
  const value = (typeof replayed === expected ? replayed : live()) as NonNullable<NondeterminismLog[K]>[number];
  const log = ctx.step ? (ctx.step.log ??= {}) : ctx.run.rootLog;
  const list = (log[kind] ??= []) as unknown[];
  // A step that loops on random() must not grow its record without bound.
  if (list.length < 1000) list.push(value);
  return value;
}

/** Date.now(), recorded (and replayed in a forked run's prefix). */
export function now(): number {
  return draw('now', () => Date.now());
}

/** Math.random(), recorded (and replayed in a forked run's prefix). */
export function random(): number {
  return draw('random', () => Math.random());
}

/** A random UUID, recorded (and replayed in a forked run's prefix). */
export function id(): string {
  return draw('id', () => randomUUID());
}
