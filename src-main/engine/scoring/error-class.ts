/**
 * Why did a step fail? "input": the step was handed something it could not
 * work with (a syntax or name error in generated code, an invalid or unknown
 * argument, a 4xx), so the step that produced that input is the cause.
 * "own": the step failed for its own reasons (timeout, 5xx, connection reset,
 * rate limit), so it is the cause. "budget": an iteration or recursion limit
 * of an agent loop, which is a symptom of whatever kept the loop going.
 */
import type { TraceError } from '../../../src-shared/trace-format';

export type ErrorOrigin = 'input' | 'own' | 'budget' | 'unknown';

const BUDGET = /\b(?:max(?:imum)?[ _-]?(?:iterations?|steps|turns|recursion)|recursion limit|iteration limit|step limit|turn limit|agent stopped)/i;
const OWN_MESSAGE =
  /\b(?:timed? ?out|timeout|deadline exceeded|connection (?:reset|refused|closed|aborted)|econnreset|etimedout|econnrefused|enotfound|socket hang up|service unavailable|unavailable|overloaded|rate[ _-]?limit|too many requests|internal server error|bad gateway|gateway timeout|out of memory|quota exceeded)\b/i;
const INPUT_MESSAGE =
  /\b(?:syntax ?error|invalid (?:syntax|argument|parameter|input|request|id|value|json|date|format)|unknown (?:argument|parameter|field|tool|column|function|key)|is not defined|unexpected (?:token|keyword|argument|indent|end of)|missing (?:required )?(?:argument|parameter|field)|required (?:field|argument|parameter)|not found|no such (?:file|table|column|key)|does not exist|context length|maximum context|too many tokens|validation (?:error|failed)|unprocessable|malformed|cannot parse|could not parse|bad request)\b/i;
const INPUT_TYPES = /^(?:SyntaxError|NameError|IndentationError|TypeError|ValueError|KeyError|IndexError|AttributeError|ValidationError|ZodError|JSONDecodeError|BadRequestError|InvalidArgument\w*|InvalidRequest\w*|NotFound\w*|FileNotFoundError|UnprocessableEntity\w*|ContextLengthExceeded\w*)$/;
const OWN_TYPES = /^(?:TimeoutError|\w*Timeout\w*|ConnectionError|ConnectionResetError|ConnectionRefusedError|APIConnectionError|ServiceUnavailable\w*|InternalServerError|RateLimitError|OverloadedError|APITimeoutError|MemoryError|OSError|BrokenPipeError)$/;

export function classifyError(err: TraceError | null | undefined): { origin: ErrorOrigin; why: string } {
  if (!err) return { origin: 'unknown', why: 'no error details were recorded' };
  const status = typeof err.status === 'number' ? err.status : null;
  const message = `${err.message ?? ''}`;
  if (BUDGET.test(message) || BUDGET.test(err.type ?? '')) return { origin: 'budget', why: 'an iteration or recursion limit was reached' };
  if (status !== null) {
    if (status >= 500 || status === 408 || status === 429) return { origin: 'own', why: `status ${status} is a failure of the service itself` };
    if (status >= 400) return { origin: 'input', why: `status ${status} means the request it was given was rejected` };
  }
  const type = err.type ?? '';
  if (OWN_TYPES.test(type)) return { origin: 'own', why: `${type} is a failure of the step itself, not of its input` };
  if (INPUT_TYPES.test(type)) return { origin: 'input', why: `${type} means the input it was given could not be used` };
  if (OWN_MESSAGE.test(message)) return { origin: 'own', why: 'the message describes a failure of the service itself' };
  if (INPUT_MESSAGE.test(message)) return { origin: 'input', why: 'the message describes an input it could not use' };
  return { origin: 'unknown', why: 'the error does not say whether its input was at fault' };
}
