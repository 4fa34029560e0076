import { useShortRunId } from '../runs/use-short-ids';
import { CopyButton } from './CopyButton';

/** A run id as its shortest unique prefix; the full id on hover and, with `copy`, on the clipboard. */
export function RunId({ id, copy = false, className = '' }: { id: string; copy?: boolean; className?: string }) {
  const short = useShortRunId()(id);
  return (
    <span className={`run-id-text mono ${className}`} title={id} data-run-id={id}>
      {short}
      {short.length < id.length && <span aria-hidden="true">…</span>}
      {copy && <CopyButton text={() => id} label="copy id" />}
    </span>
  );
}
