/**
 * Wire protocol of the local HTTP transport (`tb serve`).
 *
 * - The page is served at `/` and opened as `http://127.0.0.1:PORT/?token=TOKEN`.
 * - Calls: `POST /api/call/<CallName>` with the JSON arguments as body and
 *   header `x-traceback-token: TOKEN`; the response body is a `Result` JSON
 *   (HTTP 200 for ok and engine errors alike; 400 malformed request, 401 bad token,
 *   403 bad Host/Origin, 404 unknown call, 413 body too large).
 * - Events: `GET /api/events?token=TOKEN` is a server-sent-event stream; each
 *   event's `event:` is an `EventName` and its `data:` the JSON payload.
 */
export const TOKEN_HEADER = 'x-traceback-token';
export const CALL_PREFIX = '/api/call/';
export const EVENTS_PATH = '/api/events';
export const MAX_REQUEST_BYTES = 1_000_000;
