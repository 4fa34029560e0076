/**
 * SDK overhead per step: a wrapped no-op step (recorded to a temp inbox,
 * two synchronous line writes per step) against a bare call of the same
 * function. Goal: ≤ 20 µs per step on the 2-core CI machine. Prints what it
 * measures; it does not gate.
 *
 * Run alone: npx tsx bench/sdk-overhead.ts
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pipeline, step } from '../sdk/typescript/src/index';

export const SDK_OVERHEAD_GOAL_MICROS = 20;

export async function benchSdkOverhead(iterations = 20_000): Promise<{ perStepMicros: number; baselineMicros: number; ratio: number; lines: string[] }> {
  const home = mkdtempSync(join(tmpdir(), 'tb-bench-sdk-'));
  try {
    let sink = 0;
    const noop = (n: number) => {
      sink += n;
      return n;
    };
    const wrapped = step('noop', 'generic', noop);
    const asyncWrapped = step('noop-async', 'generic', async (n: number) => noop(n));

    // Warm-up so the JIT has compiled both paths before timing.
    await pipeline('bench-warmup', () => {
      for (let i = 0; i < 2_000; i++) wrapped(i);
    }, { home, entry: null });

    const t = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) noop(i);
    const bareNs = Number(process.hrtime.bigint() - t);

    let syncNs = 0;
    await pipeline('bench-sync', () => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) wrapped(i);
      syncNs = Number(process.hrtime.bigint() - t0);
    }, { home, entry: null });

    let asyncNs = 0;
    await pipeline('bench-async', async () => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await asyncWrapped(i);
      asyncNs = Number(process.hrtime.bigint() - t0);
    }, { home, entry: null });

    // Keeps the no-op's side effect observable, so neither loop can be optimised away.
    if (sink < 0) throw new Error('unreachable');
    const inbox = join(home, 'inbox');
    const bytes = readdirSync(inbox).reduce((sum, f) => sum + statSync(join(inbox, f)).size, 0);
    const perStepMicros = syncNs / iterations / 1000;
    const baselineMicros = bareNs / iterations / 1000;
    const asyncMicros = asyncNs / iterations / 1000;
    const ratio = perStepMicros / Math.max(baselineMicros, 1e-6);
    const verdict = perStepMicros <= SDK_OVERHEAD_GOAL_MICROS ? 'within' : 'OVER';
    const lines = [
      `sdk overhead: ${perStepMicros.toFixed(2)} µs per recorded sync step (${verdict} the ${SDK_OVERHEAD_GOAL_MICROS} µs goal), ${asyncMicros.toFixed(2)} µs per awaited async step`,
      `  bare call: ${(baselineMicros * 1000).toFixed(1)} ns; ratio ${ratio.toFixed(0)}×; ${iterations} steps per case; ${(bytes / 1e6).toFixed(1)} MB written`,
    ];
    return { perStepMicros, baselineMicros, ratio, lines };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchSdkOverhead();
  for (const line of r.lines) console.log(line);
}
