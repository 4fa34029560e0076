/**
 * The root-cause agent's answer as stored with a run and printed by
 * `tb explain --json` (docs/explain.md). Public contract: add fields, never
 * remove them.
 */
import type { Evidence } from './analysis';

/** The fixed taxonomy the agent must choose from (the tool schema's enum). */
export const FAILURE_CATEGORIES = [
  'wrong_input_handling',
  'bad_retrieval',
  'wrong_tool_or_arguments',
  'tool_failure',
  'instruction_violation',
  'hallucination',
  'reasoning_error',
  'lost_context',
  'premature_stop',
  'refusal',
  'formatting',
  'other',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

export interface ProposedEdit {
  kind: 'output' | 'instructions';
  /** The new output (JSON) or the new instructions (text) for that step. */
  value: unknown;
}

/** One candidate as the model gave it (after schema validation). */
export interface RootCauseCandidate {
  step_id: string;
  category: FailureCategory;
  confidence: number;
  hypothesis: string;
  evidence: Evidence[];
  proposed_edit: ProposedEdit | null;
}

/** What the evidence gate said about one quote. */
export interface CheckedQuote extends Evidence {
  grounded: boolean;
  /** exact: a verbatim substring (whitespace-normalised); overlap: ≥ the overlap threshold of its words in one window; else why it was not counted. */
  match: 'exact' | 'overlap' | 'not_found' | 'vague' | 'unknown_step' | 'too_short' | 'not_shown';
  /** Share of the quote's words found in the best window of the field. */
  overlap: number;
}

export interface GatedCandidate extends Omit<RootCauseCandidate, 'evidence'> {
  evidence: CheckedQuote[];
  step_name: string | null;
  /** Why it was dropped; empty for an accepted candidate. */
  rejected_because: string[];
}

export interface ExplainEstimate {
  model: string;
  input_tokens: number;
  max_output_tokens: number;
  /** In US dollars at the settings' prices; the call is refused above budget_usd. */
  cost_usd: number;
  budget_usd: number;
  within_budget: boolean;
  /** Step ids whose full text is sent (the lineage path and the deterministic suspects). */
  full_text_steps: string[];
  redactions: number;
}

export interface Explanation {
  run_id: string;
  model: string;
  created_at: number;
  estimate: ExplainEstimate;
  usage: { input_tokens: number; output_tokens: number } | null;
  /** Accepted by the evidence gate, best first. */
  candidates: GatedCandidate[];
  /** Dropped by the gate, with why: shown, never hidden. */
  rejected: GatedCandidate[];
  /** The deterministic blame's top step, and whether the agent's top candidate names another step. */
  blame_top_step_id: string | null;
  disagrees_with_blame: boolean;
  /** The model answered but not through the tool, or refused: its text, shown as text. */
  note: string | null;
  /** "Verify": the candidates with an edit, run as fork experiments and re-ranked by measured effect (best first). */
  verification?: CandidateVerification[];
}

export interface CandidateVerification {
  step_id: string;
  experiment_id: string | null;
  /** treatment − control pass rate; null when it could not be judged. */
  effect: number | null;
  p_value: number | null;
  /** effect > 0 and p < 0.05. */
  confirmed: boolean;
  /** The motif learned from it, when it was confirmed and its edit was a new output. */
  motif_id: string | null;
  skipped: string | null;
}
