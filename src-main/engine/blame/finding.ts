/**
 * A finding: one rule's claim that one step is to blame, with its strength,
 * its one-sentence reason and the verbatim evidence. `dependent` findings
 * describe bad content that an upstream fault can explain (a refusal after an
 * empty retrieval); they become symptoms when such a fault exists upstream.
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import type { RelevanceProvider } from '../scoring/relevance';
import type { StepAssessment } from '../scoring/score-run';
import type { Settings } from '../scoring/settings';
import type { Lineage } from './lineage';
import type { LoopInfo } from './loops';
import type { Recovery } from './recovery';
import type { RunGraph } from './run-graph';
import type { SpectrumCounts } from './spectrum';

export interface Finding {
  pos: number;
  rule: string;
  strength: number;
  reason: string;
  evidence: Evidence[];
  dependent: boolean;
  /**
   * Steps that share the blame when this finding is the top one: where
   * reasonable people differ on the location (the model that wrote a bad
   * call, and the call that failed on it), the other stays co-blamed.
   */
  coBlame?: Finding[];
}

export interface Symptom {
  pos: number;
  causedBy: number;
  reason: string;
}

export interface BlameWork {
  detail: RunDetail;
  settings: Settings;
  graph: RunGraph;
  assess: StepAssessment[];
  recovered: Map<number, Recovery>;
  lineage: Lineage;
  /** The backward slice of the final output (final producer included). */
  slice: Set<number>;
  loops: LoopInfo[];
  relevance: RelevanceProvider;
  expected: string | null;
  history: RunDetail[];
  /** Signature counts of the history runs, when the caller read them from the store instead of passing `history`. */
  spectrum: SpectrumCounts | null;
  /** Symptoms decided by rules themselves (e.g. a tool rejecting a bad argument). */
  symptoms: Symptom[];
}

export function evidenceList(...items: (Evidence | null | undefined)[]): Evidence[] {
  const out: Evidence[] = [];
  for (const e of items) if (e && !out.some((o) => o.step_id === e.step_id && o.field === e.field && o.quote === e.quote)) out.push(e);
  return out;
}

export function stepLabel(w: BlameWork, pos: number): string {
  const s = w.graph.steps[pos];
  return `${s.type} step "${s.name}"`;
}

/** Quote text for a sentence: one line, straight quotes kept, long text cut. */
export function q(text: string, max = 90): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return `"${t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`}"`;
}
