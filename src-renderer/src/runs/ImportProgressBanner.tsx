import { useEffect, useState } from 'react';
import { useApi } from '../api/api-context';
import { TraceText } from '../common/TraceText';
import { describeImportProgress, type ImportProgress } from '../../../src-shared/import-progress';

/** With no progress event for this long, the import is over (the engine reports every few thousand spans). */
const QUIET_MS = 1500;

/** A big file being imported (from the inbox or `importPaths`): how far it has got, and a way to stop it. */
export function ImportProgressBanner() {
  const api = useApi();
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [twoPassFile, setTwoPassFile] = useState<string | null>(null);
  useEffect(() => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const off = api.on('import-progress', (p) => {
      setProgress(p);
      if (p.phase === 'index') setTwoPassFile(p.file);
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
  const { name, percent, status } = describeImportProgress(progress);
  // An OTLP file is read twice (to plan its runs, then to store them) and the bar covers both; a native file once.
  const overall = progress.phase === 'index' ? percent / 2 : twoPassFile === progress.file ? 50 + percent / 2 : percent;
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
        : {status}
      </span>
      <progress max={100} value={overall} aria-label="Import progress" />
      <button type="button" className="button" disabled={cancelling} onClick={() => void cancel()} title="Stop the import: what is stored stays, and importing the file again finishes it">
        {cancelling ? 'Cancelling…' : 'Cancel'}
      </button>
    </section>
  );
}
