/**
 * The provenance of a forked run as it stood at the run's end. The SDK
 * writes it twice: on run-start (before divergence can be known) and on
 * run-end (superseding, with `diverged`). An importer that does not yet apply
 * the run-end copy keeps it among the run's unknown fields (`extra`), so it is
 * looked for there too.
 */
import type { Run } from '../../../src-shared/model';
import type { Provenance } from '../../../src-shared/trace-format';

export function forkedProvenance(run: Run): Provenance | null {
  const atEnd = run.extra?.provenance;
  if (atEnd && typeof atEnd === 'object' && !Array.isArray(atEnd)) {
    const p = atEnd as unknown as Provenance;
    if (!run.provenance || p.experiment_id === run.provenance.experiment_id) return { ...run.provenance, ...p };
  }
  return run.provenance;
}
