import { useEffect } from 'react';
import { useApi } from '../api/api-context';
import { useEngineQuery, useQueryCache } from '../api/use-engine-query';
import { act, togglePanel, useUi } from '../state/ui-store';
import { TraceText } from '../common/TraceText';

const ARGS = { limit: 500 };

/** Files the importer could not read, with file and line, so a broken trace is never silently missing. */
export function ImportErrorsBanner() {
  const api = useApi();
  const cache = useQueryCache();
  const open = useUi((s) => s.panels.importErrors);
  const errors = useEngineQuery('listImportErrors', ARGS);
  useEffect(() => api.on('import-errors', () => cache.refetch('listImportErrors', ARGS)), [api, cache]);
  const list = errors.data ?? [];
  if (list.length === 0) return null;
  const nErrors = list.filter((e) => e.level === 'error').length;
  const nWarnings = list.length - nErrors;
  return (
    <section className={`import-errors${nErrors ? ' has-errors' : ''}`} aria-label="Import problems">
      <button type="button" className="import-errors-head" aria-expanded={open} onClick={() => act(togglePanel, 'importErrors')}>
        {open ? '▾' : '▸'} Import problems: {nErrors} error{nErrors === 1 ? '' : 's'}, {nWarnings} warning{nWarnings === 1 ? '' : 's'}
      </button>
      {open && (
        <ul className="import-errors-list">
          {list.map((e, i) => (
            <li key={i} className={`level-${e.level}`}>
              <span className="mono file-line">
                <TraceText text={e.file} truncateAt={300} />:{e.line}
              </span>{' '}
              <span className={`badge badge-${e.level === 'error' ? 'bad' : 'warn'}`}>{e.level}</span>{' '}
              <TraceText text={e.message} truncateAt={500} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
