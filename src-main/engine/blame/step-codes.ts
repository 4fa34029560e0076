/**
 * One byte per step for what the rules' loops over every step test first: its type, its status and a few
 * facts from its metadata and output. They are filled by buildRunGraph in the pass that reads every step
 * anyway. On a 100,000-step run the step objects no longer fit the CPU cache, and each of the loops that read
 * `steps[p].type` or `.status` paid a cache miss per step: the part of blame that grew faster than the run
 * (×14.8 from 10k to 100k steps). Three byte arrays of 100,000 entries are 300 kB, and a loop touches a step
 * object only for the few steps that pass its tests.
 */
import type { Step } from '../../../src-shared/model';
import { isObj } from '../text/json-text';

/** Step types, one bit each so that a set of types is a mask. A type outside the format gets 0 (matches none). */
export const T_RETRIEVAL = 1;
export const T_PROMPT = 2;
export const T_LLM = 4;
const T_TOOL = 8;
export const T_AGENT = 16;
export const T_GENERIC = 32;
/** Tools and retrievals: the steps that look data up. */
export const T_LOOKUP = T_TOOL | T_RETRIEVAL;

export function typeCode(type: string): number {
  switch (type) {
    case 'retrieval':
      return T_RETRIEVAL;
    case 'prompt':
      return T_PROMPT;
    case 'llm':
      return T_LLM;
    case 'tool':
      return T_TOOL;
    case 'agent':
      return T_AGENT;
    case 'generic':
      return T_GENERIC;
    default:
      return 0;
  }
}

/** Step statuses; 0 for a status outside the format. */
export const S_OK = 1;
export const S_ERROR = 2;
export const S_RUNNING = 3;

export function statusCode(status: string): number {
  return status === 'ok' ? S_OK : status === 'error' ? S_ERROR : status === 'running' ? S_RUNNING : 0;
}

/** Facts, one bit each. */
/** output !== null */
export const F_OUTPUT = 1;
/** metadata.upstream_error is present: the step quotes an error that a tracing client lost (detect-failure.ts). */
export const F_UPSTREAM_ERROR = 2;
/** metadata.synthetic === true: a step the importer made, not the run (content-suspicion.ts). */
export const F_SYNTHETIC = 4;
/** The span kind or metadata marks a guardrail (final-answer-signals.ts also matches names, from the settings). */
export const F_GUARDRAIL_MARKED = 8;

export function factsOf(step: Step): number {
  let f = step.output !== null ? F_OUTPUT : 0;
  const meta = step.metadata;
  if (meta.upstream_error !== undefined) f |= F_UPSTREAM_ERROR;
  if (meta.synthetic === true) f |= F_SYNTHETIC;
  const attrs = meta.attributes;
  if (
    (isObj(attrs) && typeof attrs['openinference.span.kind'] === 'string' && attrs['openinference.span.kind'].toUpperCase() === 'GUARDRAIL') ||
    meta.guardrail === true ||
    meta.span_kind === 'GUARDRAIL'
  ) {
    f |= F_GUARDRAIL_MARKED;
  }
  return f;
}
