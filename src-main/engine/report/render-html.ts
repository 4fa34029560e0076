/**
 * HTML report: one self-contained file, inline CSS and inline SVG, no
 * scripts, no external resources (a CSP meta tag forbids them too). Every
 * piece of trace text goes through escapeHtml; trace text is never put in
 * an attribute that the browser interprets (href, src, style, on*).
 */
import type { BlamedStep } from '../../../src-shared/analysis';
import { clip, escapeHtml as h } from './escape-text';
import { fmtScore, fmtTime, type ReportModel } from './report-model';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;color:#1d2330;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d8dde6}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #d8dde6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f9}.bad{color:#b42318}.ok{color:#067647}.muted{color:#667085}
.card{border:1px solid #f04438;border-left:6px solid #f04438;padding:.75rem 1rem;border-radius:6px;background:#fffbfa}
.card.co{border-color:#f79009;background:#fffcf5}.healthy{border-color:#12b76a;background:#f6fef9}
blockquote{margin:.4rem 0;padding:.3rem .6rem;border-left:3px solid #98a2b3;background:#f9fafb;white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,Menlo,monospace;font-size:12px}
.tree div{white-space:nowrap;font-family:ui-monospace,Menlo,monospace;font-size:12px}
.role{font-weight:600;padding:0 4px;border-radius:3px}.role-blamed{background:#fee4e2}.role-symptom{background:#fef0c7}.role-recovered{background:#d1fadf}.role-co-blamed{background:#fdead7}.role-suspect{background:#f2f4f7}
`;

function blamedCard(b: BlamedStep, title: string, co = false): string {
  const ev = b.evidence
    .map((e) => `<div class="muted">${e.step_id ? `step ${h(e.step_id)} · ${h(e.field)}` : 'the run itself'}</div><blockquote>${h(clip(e.quote, 500))}</blockquote>`)
    .join('');
  return `<div class="card${co ? ' co' : ''}"><h3>${h(title)}: ${h(b.name)} <span class="muted">(${h(b.type)}, step ${b.index})</span></h3>
<p><b>Blame score</b> ${b.score.toFixed(2)} · <b>confidence</b> ${h(b.confidence)} · <b>rule</b> ${h(b.rule)}</p>
<p><b>Reason:</b> ${h(b.reason)}</p>${ev ? `<p><b>Evidence</b> (verbatim from the trace)</p>${ev}` : ''}</div>`;
}

function scoreColor(s: number | null | undefined): string {
  if (s === null || s === undefined) return '#98a2b3';
  return s < 0.5 ? '#f04438' : s < 0.8 ? '#f79009' : '#12b76a';
}

/** Bars of step scores in start order (at most 400 bars; longer runs are sampled evenly). */
function scoreChart(m: ReportModel): string {
  const rows = [...m.tree].sort((a, b) => a.step.index - b.step.index);
  const step = Math.max(1, Math.ceil(rows.length / 400));
  const shown = rows.filter((_, i) => i % step === 0 || _.role === 'blamed');
  const W = 1000;
  const H = 120;
  const bw = W / Math.max(1, shown.length);
  const bars = shown
    .map((r, i) => {
      const s = r.health?.score;
      const bh = s === null || s === undefined ? 4 : Math.max(2, s * (H - 20));
      const stroke = r.role === 'blamed' ? ' stroke="#1d2330" stroke-width="2"' : '';
      return `<rect x="${(i * bw + 1).toFixed(1)}" y="${(H - bh).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="${scoreColor(s)}"${stroke}><title>${h(`${r.step.index} ${r.step.name}: ${fmtScore(s)}`)}</title></rect>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" height="${H}" role="img" aria-label="step scores"><line x1="0" y1="${H - (H - 20) * 0.5}" x2="${W}" y2="${H - (H - 20) * 0.5}" stroke="#d0d5dd" stroke-dasharray="4 4"/>${bars}</svg>`;
}

function lineageSvg(m: ReportModel): string {
  const items = m.lineage.slice(0, 12);
  if (items.length === 0) return '<p class="muted">No lineage path.</p>';
  const bw = 150;
  const gap = 30;
  const W = items.length * (bw + gap);
  const boxes = items
    .map((it, i) => {
      const x = i * (bw + gap);
      const arrow = i < items.length - 1 ? `<line x1="${x + bw}" y1="25" x2="${x + bw + gap - 4}" y2="25" stroke="#475467" stroke-width="2" marker-end="url(#arr)"/>` : '';
      const fill = i === 0 ? '#fee4e2' : i === items.length - 1 ? '#eef4ff' : '#f2f4f7';
      return `<rect x="${x}" y="5" width="${bw}" height="40" rx="6" fill="${fill}" stroke="#98a2b3"/><text x="${x + bw / 2}" y="30" text-anchor="middle" font-size="12">${h(clip(it.name, 20))}</text>${arrow}`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} 50" width="${Math.min(W, 1060)}" height="50" role="img" aria-label="lineage path"><defs><marker id="arr" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#475467"/></marker></defs>${boxes}</svg>`;
}

export function renderHtml(m: ReportModel): string {
  const { run } = m.detail;
  const b = m.blame;
  const parts: string[] = [];
  parts.push(`<h1>Traceback report: run ${h(run.run_id)}</h1>`);
  parts.push(`<table><tbody>
<tr><th>Pipeline</th><td>${h(run.pipeline)}</td></tr>
<tr><th>State</th><td>${h(m.state.label)}: ${h(clip(m.state.reason, 500))}</td></tr>
<tr><th>Status</th><td>${h(run.status)}</td></tr>
<tr><th>Verdict</th><td>${run.verdict ? `${run.verdict.pass ? '<span class="ok">pass</span>' : '<span class="bad">fail</span>'}${run.verdict.detail ? ` — ${h(clip(run.verdict.detail, 500))}` : ''}` : 'none recorded'}</td></tr>
<tr><th>Started</th><td>${h(fmtTime(run.started_at))}</td></tr>
<tr><th>Duration</th><td>${run.duration_ms === null ? '–' : `${Math.round(run.duration_ms)} ms`}</td></tr>
<tr><th>Steps</th><td>${m.detail.steps.length}</td></tr></tbody></table>`);
  parts.push('<h2>Blame</h2>');
  if (b.healthy) {
    parts.push(
      m.state.state === 'healthy'
        ? '<div class="card healthy"><p>The run is healthy: no step is blamed.</p></div>'
        : `<div class="card co"><p>The run is ${h(m.state.label)}: ${h(m.state.reason)} No step is blamed.</p></div>`,
    );
  } else {
    parts.push(`<p><b>Failure:</b> ${h(b.failure?.description ?? 'unknown')}</p>`);
    parts.push(b.blamed[0] ? blamedCard(b.blamed[0], 'Blamed step') : '<p>No step could be blamed with evidence.</p>');
    for (const c of b.co_blamed) parts.push(blamedCard(c, 'Co-blamed', true));
    if (b.blamed.length > 1) {
      parts.push(`<h3>Other candidates</h3><ul>${b.blamed
        .slice(1, 6)
        .map((c) => `<li>${h(c.name)} — ${c.score.toFixed(2)} (${h(c.rule)}): ${h(clip(c.reason, 300))}</li>`)
        .join('')}</ul>`);
    }
    if (b.symptoms.length > 0) {
      parts.push(`<h3>Symptoms</h3><ul>${b.symptoms
        .slice(0, 50)
        .map((s) => `<li>${h(s.name)} <span class="muted">(step ${h(s.step_id)})</span>: ${h(clip(s.reason, 300))}</li>`)
        .join('')}</ul>`);
    }
  }
  if ((b.recovered ?? []).length > 0) {
    parts.push(`<h3>Recovered (not blamed)</h3><ul>${b.recovered!.map((r) => `<li>${h(r.name)}: ${h(r.reason)}</li>`).join('')}</ul>`);
  }
  parts.push('<h2>Lineage path</h2>', lineageSvg(m));
  parts.push('<h2>Step scores</h2>', scoreChart(m));
  const rows = [...m.tree]
    .sort((x, y) => x.step.index - y.step.index)
    .slice(0, 5000)
    .map((r) => {
      const worst = r.health?.checks.filter((c) => !c.name.startsWith('retrieval.passage')).sort((x, y) => x.value - y.value)[0];
      return `<tr><td>${r.step.index}</td><td>${h(clip(r.step.name, 120))}${r.role ? ` <span class="role role-${r.role}">${r.role}</span>` : ''}</td><td>${h(r.step.type)}</td><td>${h(r.step.status)}</td><td style="color:${scoreColor(r.health?.score)}">${fmtScore(r.health?.score)}</td><td>${worst ? `${h(worst.name)}: ${h(clip(worst.explanation ?? '', 200))}` : ''}</td></tr>`;
    })
    .join('');
  parts.push(`<table><thead><tr><th>#</th><th>Step</th><th>Type</th><th>Status</th><th>Score</th><th>Worst check</th></tr></thead><tbody>${rows}</tbody></table>`);
  if (m.tree.length > 5000) parts.push(`<p class="muted">${m.tree.length - 5000} more steps not listed.</p>`);
  parts.push(
    `<h2>Step tree</h2><div class="tree">${m.tree
      .slice(0, 5000)
      .map((r) => `<div style="padding-left:${Math.min(r.depth, 40) * 16}px">${h(r.step.name)} <span class="muted">· ${h(r.step.type)} · ${h(r.step.status)} · ${fmtScore(r.health?.score)}</span>${r.role ? ` <span class="role role-${r.role}">${r.role}</span>` : ''}</div>`)
      .join('')}</div>`,
  );
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Traceback report ${h(clip(run.run_id, 80))}</title><style>${CSS}</style></head>
<body>${parts.join('\n')}
<p class="muted">Generated by Traceback. Trace text is shown escaped; quotes are verbatim from the trace.</p></body></html>
`;
}
