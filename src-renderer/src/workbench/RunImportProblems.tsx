import { useEffect, useState } from 'react';
import type { ImportError } from '../../../src-shared/model';
import { useApi } from '../api/api-context';
import { useEngineQuery, useQueryCache } from '../api/use-engine-query';
import { TraceText } from '../common/TraceText';

/** The import problems that concern one run (by the run id in the line, else its file's), refreshed as files are re-read. */
export function useRunImportProblems(runId: string | null): ImportError[] {
  const api = useApi();
  const cache = useQueryCache();
  const problems = useEngineQuery('listImportErrors', runId ? { runId, limit: 500 } : null);
  useEffect(() => (runId ? api.on('import-errors', () => cache.refetch('listImportErrors', { runId, limit: 500 })) : undefined), [api, cache, runId]);
  return problems.data ?? [];
}

export function importCounts(problems: ImportError[]): { errors: number; warnings: number } {
  const errors = problems.filter((p) => p.level === 'error').length;
  return { errors, warnings: problems.length - errors };
}

/**
 * A banner above the run: what the importer could not read in this run's file,
 * with file:line. Open by default when a line was lost (an error), since the run
 * is then judged on part of its trace.
 */
export function RunImportProblems({ problems }: { problems: ImportError[] }) {
  const { errors, warnings } = importCounts(problems);
  // Until the user toggles it, open exactly when a line was lost (the problems arrive after the first render).
  const [toggled, setToggled] = useState<boolean | null>(null);
  const open = toggled ?? errors > 0;
  if (problems.length === 0) return null;
  return (
    <section className={`import-errors run-import-problems${errors ? ' has-errors' : ''}`} aria-label="Import problems of this run" data-testid="run-import-problems" id="run-import-problems">
      <button type="button" className="import-errors-head" aria-expanded={open} onClick={() => setToggled(!open)}>
        {open ? '▾' : '▸'} This run&apos;s trace file had {errors ? `${errors} import error${errors === 1 ? '' : 's'}` : ''}
        {errors && warnings ? ' and ' : ''}
        {warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : ''}
        {errors ? ': steps may be missing, so the verdict speaks only for what was imported.' : '.'}
      </button>
      {open && (
        <ul className="import-errors-list">
          {problems.map((e, i) => (
            <li key={i} className={`level-${e.level}`}>
              <span className="mono file-line">
                <TraceText text={e.file} truncateAt={300} />:{e.line}
              </span>{' '}
              <span className={`badge badge-${e.level === 'error' ? 'bad' : 'warn'}`}>{e.level}</span> <TraceText text={e.message} truncateAt={500} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
