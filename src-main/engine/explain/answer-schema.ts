/** The agent's tool input, checked before the gate: anything else is a malformed answer, rejected with what was wrong. */
import { z } from 'zod';
import { FAILURE_CATEGORIES, type RootCauseCandidate } from '../../../src-shared/explain';

const evidence = z.object({ step_id: z.string().min(1).max(200), field: z.enum(['input', 'output', 'error', 'metadata', 'run']), quote: z.string().max(4000) }).strict();
const candidate = z
  .object({
    step_id: z.string().min(1).max(200),
    category: z.enum(FAILURE_CATEGORIES),
    confidence: z.number().min(0).max(1),
    hypothesis: z.string().min(1).max(2000),
    evidence: z.array(evidence).max(10),
    proposed_edit: z
      .object({ kind: z.enum(['output', 'instructions']), value: z.unknown() })
      .strict()
      .refine((e) => e.kind !== 'instructions' || (typeof e.value === 'string' && e.value.trim() !== ''), 'instructions must be non-empty text')
      .nullish(),
  })
  .strict();
const answer = z.object({ candidates: z.array(candidate).max(3) }).strict();

type ParsedAnswer = { ok: true; candidates: RootCauseCandidate[] } | { ok: false; problem: string };

export function parseAnswer(input: unknown): ParsedAnswer {
  const r = answer.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, problem: `${issue.path.join('.') || 'the answer'}: ${issue.message}` };
  }
  return { ok: true, candidates: r.data.candidates.map((c) => ({ ...c, proposed_edit: c.proposed_edit ?? null })) };
}
