import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpClient } from './http-client';

afterEach(() => vi.unstubAllGlobals());

/** A server whose answer to every call is the current `answer`. */
function serve(answer: { text: string }) {
  vi.stubGlobal('fetch', async () => new Response(answer.text, { status: 200, headers: { 'content-type': 'application/json' } }));
}

describe('the tb serve client', () => {
  it('a big answer that comes back unchanged is the very same object; a changed one, or another call, is parsed anew', async () => {
    const big = { text: JSON.stringify({ ok: true, value: { steps: 'x'.repeat(200_000) } }) };
    serve(big);
    const client = createHttpClient('token');
    const first = await client.invoke('getRunSkeleton', { runId: 'r' });
    expect(await client.invoke('getRunSkeleton', { runId: 'r' })).toBe(first);
    const other = await client.invoke('getRunSkeleton', { runId: 'r2' });
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
    big.text = JSON.stringify({ ok: true, value: { steps: 'y'.repeat(200_000) } });
    const changed = await client.invoke('getRunSkeleton', { runId: 'r' });
    expect(changed).not.toBe(first);
    expect(changed).toMatchObject({ ok: true, value: { steps: expect.stringMatching(/^y+$/) } });
  });

  it('small answers are parsed each time (nothing kept for them)', async () => {
    serve({ text: JSON.stringify({ ok: true, value: [] }) });
    const client = createHttpClient('token');
    const first = await client.invoke('listRuns', {});
    expect(await client.invoke('listRuns', {})).not.toBe(first);
  });
});
