/**
 * Blame tests' common harness: blame a built trace (or a folded run) with the
 * default settings, and check on the way that every evidence quote of every
 * blamed and co-blamed step is verbatim in the trace.
 */
import { expect } from 'vitest';
import type { BlameResult } from '../../src-shared/analysis';
import type { RunDetail } from '../../src-shared/model';
import { blameRun, type BlameContext } from '../../src-main/engine/blame/blame-run';
import { DEFAULT_SETTINGS } from '../../src-main/engine/scoring/settings';
import { isVerbatim } from '../../src-main/engine/text/evidence-quote';
import { TraceBuilder } from './trace-builder';

export const chat = (text: string) => ({ messages: [{ role: 'user', content: text }] });

export function blameChecked(b: TraceBuilder | RunDetail, extra: Partial<BlameContext> = {}): BlameResult {
  const d = b instanceof TraceBuilder ? b.detail() : b;
  const r = blameRun(d, { settings: DEFAULT_SETTINGS, toolStats: {}, ...extra });
  for (const x of [...r.blamed, ...r.co_blamed]) for (const e of x.evidence) expect(isVerbatim(e, d.steps, d.run), `quote ${e.quote}`).toBe(true);
  return r;
}

export const topBlamed = (r: BlameResult) => r.blamed[0];
