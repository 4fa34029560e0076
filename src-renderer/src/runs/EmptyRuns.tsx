import { useEngineQuery } from '../api/use-engine-query';
import { CopyButton } from '../common/CopyButton';

/** What Traceback reads, in the words of the tools that write it. */
const FORMATS: [string, string][] = [
  ['Traceback SDK (JSON Lines)', 'sdk/typescript, sdk/python: one file per run, read while it grows'],
  ['OpenTelemetry OTLP/JSON', 'OpenInference, Traceloop/OpenLLMetry and other GenAI span exporters'],
  ['LangChain / LangSmith run trees', 'exported runs as JSON'],
  ['Chat transcripts', 'multi-agent logs such as {question, history}'],
];

/** The runs list before the first run: where traces go, what is read, and a one-line demo. */
export function EmptyRuns() {
  const info = useEngineQuery('getInfo', {});
  const inbox = info.data?.inbox ?? '~/.traceback/inbox';
  const demo = 'npm run tb -- demo';
  return (
    <div className="empty empty-runs" data-testid="empty-runs">
      <h2>No runs yet</h2>
      <p>Traceback imports every trace file that lands in its inbox, and keeps reading files that grow:</p>
      <div className="copy-line">
        <code className="mono" data-testid="inbox-path">
          {inbox}
        </code>
        <CopyButton text={() => inbox} label="copy path" />
      </div>
      <p>Files it reads:</p>
      <ul className="format-list">
        {FORMATS.map(([name, detail]) => (
          <li key={name}>
            <strong>{name}</strong> <span className="muted">— {detail}</span>
          </li>
        ))}
      </ul>
      <p>Or record a few demo runs (healthy and failed ones, with fork experiments to explore):</p>
      <div className="copy-line">
        <code className="mono">{demo}</code>
        <CopyButton text={() => demo} label="copy" />
      </div>
      <p className="muted small">
        Elsewhere on disk: <code className="mono">npm run tb -- import PATH…</code>
      </p>
    </div>
  );
}
