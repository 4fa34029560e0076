import { test as base, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { startTbServer, type TbServer } from './tb-server';
import type { CallArgs, CallName, CallResult } from '../src-shared/api';
import { CALL_PREFIX, TOKEN_HEADER } from '../src-shared/http-protocol';
import type { Result } from '../src-shared/result';

const ARTIFACTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'artifacts');

/** Every test gets its own `tb serve` on its own data folder holding the demo runs. */
export const test = base.extend<{ tb: TbServer; app: Page }>({
  // eslint-disable-next-line no-empty-pattern
  tb: async ({}, use) => {
    const server = await startTbServer();
    await use(server);
    await server.stop();
  },
  app: async ({ page, tb }, use) => {
    // The UI must never reach anything but its own server.
    const foreign: string[] = [];
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(tb.origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    const consoleErrors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text()));
    page.on('pageerror', (err) => consoleErrors.push(String(err)));
    await page.goto(tb.url);
    await use(page);
    expect(foreign, 'requests to other hosts').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
  },
});

export { expect };

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

export function runRows(page: Page) {
  return page.locator('.run-table .table-body [role="row"]');
}

/** Asks the engine directly (same contract as the UI) to pick the data a story needs. */
export async function callApi<K extends CallName>(tb: TbServer, name: K, args: CallArgs<K>): Promise<CallResult<K>> {
  const res = await fetch(`${tb.origin}${CALL_PREFIX}${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: tb.token },
    body: JSON.stringify(args),
  });
  const result = (await res.json()) as Result<CallResult<K>>;
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
  return result.value;
}

/** A failed run whose top blame finding quotes evidence, with its blame. */
export async function failedRunWithEvidence(tb: TbServer) {
  const runs = await callApi(tb, 'listRuns', { filter: 'failed' });
  for (const run of runs) {
    const blame = await callApi(tb, 'blameRun', { runId: run.run_id });
    if (blame.blamed[0]?.evidence.length) return { run, blame };
  }
  throw new Error('no failed demo run has blame evidence');
}
