/**
 * The motif file (`tb motifs export FILE` / `import FILE`): JSON a team
 * shares, and the file the SDKs read for pitfalls and the guard. Validated on
 * import, so a hand-edited file is refused with the path of what is wrong.
 */
import { z } from 'zod';
import { MOTIF_FILE_FORMAT, MOTIF_FILE_VERSION, type FailureMotif, type MotifFile } from '../../../src-shared/motifs';
import { EngineError } from '../../../src-shared/result';

const text = (max: number) => z.string().max(max);
const evidenceSchema = z.object({ step_id: text(200), field: z.enum(['input', 'output', 'error', 'metadata', 'run']), quote: text(2000) });

const motifSchema = z.object({
  motif_id: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/),
  name: text(500).min(1),
  requirement: text(4000),
  violation: text(4000),
  recommendation: text(4000),
  task_cue: text(500),
  violation_cue: text(500),
  step_signature: text(500),
  step_type: z.enum(['retrieval', 'prompt', 'llm', 'tool', 'agent', 'generic']),
  failure_kind: text(200).nullable(),
  signals: z.array(text(200)).max(50),
  evidence: z.array(evidenceSchema).max(20),
  fix: z.object({ kind: z.enum(['output', 'instructions']), summary: text(4000) }).nullable(),
  proof: z
    .object({ experiment_id: text(200), treatment_pass_rate: z.number().min(0).max(1), control_pass_rate: z.number().min(0).max(1), p_value: z.number().min(0).max(1) })
    .nullable(),
  origin: z.enum(['blame', 'agent', 'imported']),
  source_run_id: text(200).nullable(),
  learned_from_run: text(200).nullable(),
  pipeline: text(500).nullable(),
  created_at: z.number(),
});

const fileSchema = z.object({
  format: z.literal(MOTIF_FILE_FORMAT),
  version: z.number().int(),
  exported_at: z.number(),
  thresholds: z.object({ pitfall: z.number().min(0).max(1), guard: z.number().min(0).max(1) }).optional(),
  motifs: z.array(motifSchema).max(10_000),
});

export function motifFileOf(motifs: FailureMotif[], thresholds?: MotifFile['thresholds'], now = Date.now()): MotifFile {
  return { format: MOTIF_FILE_FORMAT, version: MOTIF_FILE_VERSION, exported_at: now, ...(thresholds ? { thresholds } : {}), motifs };
}

/** Parses a motif file's text; `name` (the file) is named in every error. */
export function parseMotifFile(content: string, name: string): FailureMotif[] {
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch (err) {
    throw new EngineError('bad_request', `${name}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineError('bad_request', `${name}: not a Traceback motif file: ${issue.path.join('.') || 'top level'}: ${issue.message}`);
  }
  if (parsed.data.version > MOTIF_FILE_VERSION) {
    throw new EngineError('unsupported', `${name}: motif file version ${parsed.data.version} is newer than this Traceback understands (${MOTIF_FILE_VERSION})`);
  }
  return parsed.data.motifs as FailureMotif[];
}
