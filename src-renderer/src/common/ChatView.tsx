import type { Json } from '../../../src-shared/trace-format';
import type { ChatTurn } from '../text/content-shape';
import type { Needle } from '../text/highlight';
import { JsonView } from './JsonView';
import { TraceText } from './TraceText';

/**
 * Chat messages as a conversation: who spoke, what they said, which tools
 * they called with which arguments, and which call a tool result answers.
 * Text only: message content is never HTML.
 */
export function ChatView({ turns, needles }: { turns: ChatTurn[]; needles: Needle[] }) {
  return (
    <ol className="chat" data-testid="chat-view">
      {turns.map((t, i) => (
        <li key={i} className={`chat-turn role-${t.role.replace(/[^a-z]/gi, '')}`} data-role={t.role}>
          <div className="chat-head">
            <span className="chat-role">{t.role}</span>
            {t.name && (
              <span className="muted mono">
                <TraceText text={t.name} truncateAt={80} />
              </span>
            )}
            {t.toolCallId && (
              <span className="muted small">
                result of call <span className="mono">{t.toolCallId}</span>
              </span>
            )}
          </div>
          {t.text !== '' && (
            <div className="chat-text trace-text">
              <TraceText text={t.text} needles={needles} truncateAt={4000} />
            </div>
          )}
          {t.toolCalls.map((c, j) => (
            <div key={j} className="chat-call" data-testid="chat-tool-call">
              <span className="chat-call-label">calls</span> <strong className="mono">{c.name}</strong>
              {c.id && <span className="muted mono small"> {c.id}</span>}
              <div className="chat-args">
                {typeof c.args === 'string' ? (
                  <span className="trace-text">
                    <TraceText text={c.args} needles={needles} />
                  </span>
                ) : (
                  <JsonView value={c.args as Json} needles={needles} />
                )}
              </div>
            </div>
          ))}
          {t.text === '' && t.toolCalls.length === 0 && <span className="muted small">(empty)</span>}
        </li>
      ))}
    </ol>
  );
}
