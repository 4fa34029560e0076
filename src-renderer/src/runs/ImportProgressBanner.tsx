import { useEffect, useState } from 'react';
import type { ApiEvents } from '../../../src-shared/api';
import { useApi } from '../api/api-context';
import { TraceText } from '../common/TraceText';

/** With no progress event for this long, the import is over (the engine reports every few thousand spans). */
const QUIET_MS = 1500;

type Progress = ApiEvents['import-progress'];

/** A big file being imported (from the inbox or `importPaths`): how far it has got, and a way to stop it. */
export function ImportProgressBanner() {
  const api = useApi();
  const [progress, setProgress] = useState<Progress | null>(null);
  const [cancelling, setCancelling] = useState(false);
  useEffect(() => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const off = api.on('import-progress', (p) => {
      setProgress(p);
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        setProgress(null);
        setCancelling(false);
      }, QUIET_MS);
    });
    return () => {
      off();
      clearTimeout(quiet);
    };
  }, [api]);
  if (!progress) return null;
  const pct = progress.bytesTotal > 0 ? Math.floor((100 * progress.bytesDone) / progress.bytesTotal) : 0;
  // The file is read twice: once to plan its runs, once to store them; the bar covers both.
  const overall = progress.phase === 'index' ? pct / 2 : 50 + pct / 2;
  const name = progress.file.split(/[\\/]/).pop() ?? progress.file;
  const cancel = async () => {
    setCancelling(true);
    await api.invoke('cancelImport', {});
  };
  return (
    <section className="import-progress" aria-label="Import in progress" data-testid="import-progress">
      <span className="import-progress-text">
        Importing{' '}
        <span className="mono">
          <TraceText text={name} truncateAt={120} />
        </span>
        : {progress.phase === 'index' ? 'reading spans' : 'storing steps'} {pct}% ({mb(progress.bytesDone)} of {mb(progress.bytesTotal)} MB)
      </span>
      <progress max={100} value={overall} aria-label="Import progress" />
      <button type="button" className="button" disabled={cancelling} onClick={() => void cancel()} title="Stop the import: what is stored stays, and importing the file again finishes it">
        {cancelling ? 'Cancelling…' : 'Cancel'}
      </button>
    </section>
  );
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0);
}
