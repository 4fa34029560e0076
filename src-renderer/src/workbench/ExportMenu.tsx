import { useCallback, useRef, useState } from 'react';
import { useDismiss } from '../common/use-dismiss';
import { callSchemas, type ReportFormat } from '../../../src-shared/api';
import { useApi } from '../api/api-context';

type Format = ReportFormat;

const MIME: Record<Format, string> = {
  md: 'text/markdown;charset=utf-8',
  html: 'text/html;charset=utf-8',
  json: 'application/json;charset=utf-8',
  pdf: 'application/pdf',
};
const LABEL: Record<Format, string> = { md: 'Markdown (.md)', html: 'HTML (.html)', json: 'JSON (.json)', pdf: 'PDF (.pdf)' };

/** The formats the contract's renderReport accepts. */
const FORMATS = callSchemas.renderReport.shape.format.options as readonly Format[];

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

function saveFile(content: string | Uint8Array<ArrayBuffer>, filename: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  // The engine names the file, but trace text can reach it: keep it a plain name.
  a.download = filename.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').slice(0, 200) || 'report';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ExportMenu({ runId }: { runId: string }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<Format | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useDismiss(open, useCallback(() => setOpen(false), []), wrap, button);
  const exportAs = async (format: Format) => {
    setBusy(format);
    setError(null);
    const result = await api.invoke('renderReport', { runId, format });
    setBusy(null);
    if (!result.ok) {
      setError(result.error.message);
      return;
    }
    setOpen(false);
    const { content, encoding, filename } = result.value;
    saveFile(encoding === 'base64' ? base64Bytes(content) : content, filename, MIME[format]);
  };
  return (
    <div className="menu-wrap" ref={wrap}>
      <button ref={button} type="button" className="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        Export report ▾
      </button>
      {open && (
        <div className="menu" role="menu" data-testid="export-menu">
          {FORMATS.map((f) => (
            <button key={f} type="button" role="menuitem" className="menu-item" disabled={busy !== null} onClick={() => exportAs(f)}>
              {busy === f ? 'Rendering…' : LABEL[f]}
            </button>
          ))}
          {error && (
            <div className="error-note small" role="alert">
              {error}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
