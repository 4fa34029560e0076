/** Results, not thrown errors, cross every process boundary (IPC, HTTP). */
export type ApiErrorCode = 'bad_request' | 'not_found' | 'ambiguous' | 'conflict' | 'unsupported' | 'internal';

export interface ApiError {
  code: ApiErrorCode;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export class EngineError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
