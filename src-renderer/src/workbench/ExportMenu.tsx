import { useState } from 'react';
import { callSchemas } from '../../../src-shared/api';
import { useApi } from '../api/api-context';

type Format = 'md' | 'html' | 'json';

const MIME: Record<Format, string> = {
  md: 'text/markdown;charset=utf-8',
  html: 'text/html;charset=utf-8',
  json: 'application/json;charset=utf-8',
};
const LABEL: Record<Format, string> = { md: 'Markdown (.md)', html: 'HTML (.html)', json: 'JSON (.json)' };

/** Only the formats the contract's renderReport accepts are offered (PDF appears when the engine adds it). */
const FORMATS = callSchemas.renderReport.shape.format.options as readonly Format[];

export function saveFile(content: string, filename: string, mime: string): void {
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
    saveFile(result.value.content, result.value.filename, MIME[format]);
  };
  return (
    <div className="menu-wrap">
      <button type="button" className="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        Export report ▾
      </button>
      {open && (
        <div className="menu" role="menu">
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
