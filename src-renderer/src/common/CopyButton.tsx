import { useState } from 'react';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The async clipboard needs a secure context or focus; fall back to a selection copy.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label = 'copy' }: { text: () => string; label?: string }) {
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  return (
    <button
      type="button"
      className="mini-button"
      title="Copy to clipboard"
      onClick={async () => {
        setState((await copyText(text())) ? 'done' : 'failed');
        setTimeout(() => setState('idle'), 1200);
      }}
    >
      {state === 'done' ? 'copied' : state === 'failed' ? 'copy failed' : label}
    </button>
  );
}
