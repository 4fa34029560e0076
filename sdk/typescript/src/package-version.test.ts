import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_VERSION } from './version.js';

// Every run-start record names the SDK version that wrote it; it must be the version of the package the user installed.
describe('the npm package', () => {
  it('records runs under the version it is published as', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect(manifest.name).toBe('tracebackai');
    expect(SDK_VERSION).toBe(manifest.version);
  });
});
