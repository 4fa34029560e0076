import { useState, type ReactNode } from 'react';

export function Section({
  title,
  actions,
  children,
  defaultOpen = true,
  testId,
  badge,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  defaultOpen?: boolean;
  testId?: string;
  badge?: ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <section className="panel-section" data-testid={testId} aria-label={title}>
      <header className="panel-section-head">
        <button type="button" className="section-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} {title}
        </button>
        {badge}
        <span className="toolbar-spacer" />
        {open && actions}
      </header>
      {open && <div className="panel-section-body">{children}</div>}
    </section>
  );
}
