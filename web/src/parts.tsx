// How each UIMessage part looks: markdown text, collapsible reasoning, tool cards with approvals,
// input requests, files, agent errors. Model output only ever reaches text nodes.
import { getToolName, isToolUIPart, type UIMessage } from 'ai';
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Markdown, safeUrl } from './markdown';

type Part = UIMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }>;

/** What a part may do to the chat: answer an approval or an input request. */
export interface PartActions {
  approve: (approvalId: string, approved: boolean) => void;
  answer: (text: string) => void;
  /** Whether this message is the one the user is expected to answer now. */
  awaitingUser: boolean;
  /** Whether the conversation has gone on past this message: what it asked stays unanswered. */
  movedPast: boolean;
}

function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (value && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`);
    return fields.length ? `{ ${fields.join(', ')} }` : '{}';
  }
  return JSON.stringify(value) ?? String(value);
}

/** A value for a card: strings as they are, short JSON on one line, longer JSON indented. */
function json(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const flat = oneLine(value);
    return flat.length <= 80 ? flat : JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

const STATE_LABELS: Record<string, [string, string]> = {
  'input-streaming': ['preparing', 'pending'],
  'input-available': ['running', 'pending'],
  'approval-requested': ['needs approval', 'ask'],
  'approval-responded': ['answered', 'pending'],
  'output-available': ['done', 'ok'],
  'output-error': ['error', 'bad'],
  'output-denied': ['denied', 'bad'],
};

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function brief(value: unknown): string {
  try {
    return typeof value === 'string' ? value : oneLine(value);
  } catch {
    return String(value);
  }
}

/** One line for a folded card: what went in and what came out, both cut short. */
function toolSummary(part: ToolPart): string {
  const input = part.input === undefined ? '' : clip(brief(part.input), 60);
  if (part.state === 'output-available') return `${input} → ${clip(brief(part.output), 80)}`;
  if (part.state === 'output-error') return `${input} → ${clip(part.errorText ?? 'error', 80)}`;
  return input;
}

// States in which a card is open by itself: the call is still going or waits for the user.
const OPEN_STATES = new Set(['input-streaming', 'input-available', 'approval-requested', 'approval-responded']);

function ToolCard({ part, actions }: { part: ToolPart; actions: PartActions }): JSX.Element {
  const name = getToolName(part);
  const approval = 'approval' in part ? part.approval : undefined;
  // Asked, then passed over: the server recorded no answer, and none can be given any more.
  const unanswered = part.state === 'approval-requested' && actions.movedPast;
  const [label, tone] = unanswered ? ['not answered', 'pending'] : (STATE_LABELS[part.state] ?? [part.state, 'pending']);
  // Open while running or asking; folded to one line once done, unless the user opened it.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? (OPEN_STATES.has(part.state) && !unanswered);
  return (
    <section class={`card tool tone-${tone}`} aria-label={`Tool call ${name}`} data-tool={name} data-state={part.state}>
      <details
        open={open}
        onToggle={(e) => {
          // Only the user's own clicks count (a render that opens or closes it fires this too).
          const now = (e.currentTarget as HTMLDetailsElement).open;
          if (now !== open) setChosen(now);
        }}
      >
        <summary>
          <span class="tool-icon" aria-hidden="true">
            ƒ
          </span>
          <span class="tool-name">{name}</span>
          {!open && <span class="tool-summary">{toolSummary(part)}</span>}
          <span class={`badge tone-${tone}`}>{label}</span>
        </summary>
        {part.input !== undefined && (
          <div class="io">
            <div class="io-label">Input</div>
            <pre>{json(part.input)}</pre>
          </div>
        )}
        {part.state === 'output-available' && (
          <div class="io">
            <div class="io-label">Output</div>
            <pre>{json(part.output)}</pre>
          </div>
        )}
        {part.state === 'output-error' && (
          <div class="io">
            <div class="io-label">Error</div>
            <pre class="error-text">{part.errorText}</pre>
          </div>
        )}
      </details>
      {unanswered && <div class="approval-note">Not answered.</div>}
      {part.state === 'approval-requested' && approval && !actions.movedPast && (
        <div class="approval" role="group" aria-label={`Approve ${name}?`}>
          <span>
            Run <strong>{name}</strong>?
          </span>
          <button type="button" class="primary" onClick={() => actions.approve(approval.id, true)}>
            Approve
          </button>
          <button type="button" class="danger" onClick={() => actions.approve(approval.id, false)}>
            Deny
          </button>
        </div>
      )}
      {approval?.approved !== undefined && part.state !== 'approval-requested' && (
        <div class="approval-note">
          {approval.approved ? 'You approved this call.' : 'You denied this call.'}
          {approval.reason ? ` (${approval.reason})` : ''}
        </div>
      )}
    </section>
  );
}

function InputRequest({ prompt, actions }: { prompt: string; actions: PartActions }): JSX.Element {
  const [text, setText] = useState('');
  const box = useRef<HTMLInputElement>(null);
  // The agent waits for this answer: put the cursor where it goes.
  useEffect(() => box.current?.focus(), [actions.awaitingUser]);
  if (!actions.awaitingUser) {
    return (
      <section class="card input-request answered">
        <span class="io-label">Asked</span> {prompt}
      </section>
    );
  }
  return (
    <form
      class="card input-request"
      aria-label="The agent asks"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) actions.answer(text);
      }}
    >
      <label>
        <span class="io-label">The agent asks</span>
        <span class="prompt">{prompt}</span>
        <input
          type="text"
          name="answer"
          ref={box}
          value={text}
          autoComplete="off"
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" class="primary" disabled={!text.trim()}>
        Answer
      </button>
    </form>
  );
}

function FilePart({ url, mediaType, filename }: { url: string; mediaType: string; filename?: string }): JSX.Element {
  // Inline only what cannot call out to another host: data: and blob: URLs.
  const local = /^(data|blob):/i.test(url);
  if (local && mediaType.startsWith('image/')) {
    return (
      <figure class="file image">
        <img src={url} alt={filename ?? 'image'} loading="lazy" />
        {filename && <figcaption>{filename}</figcaption>}
      </figure>
    );
  }
  const href = local ? url : safeUrl(url);
  const label = filename ?? (local ? mediaType : url);
  return (
    <div class="file chip">
      {href ? (
        <a href={href} download={filename ?? true} target="_blank" rel="noopener noreferrer nofollow">
          {label}
        </a>
      ) : (
        label
      )}{' '}
      <span class="muted">{mediaType}</span>
    </div>
  );
}

function dataText(data: unknown, key: string): string | undefined {
  if (data && typeof data === 'object' && typeof (data as Record<string, unknown>)[key] === 'string') {
    return (data as Record<string, string>)[key];
  }
  return undefined;
}

export function PartView({
  part,
  role,
  streaming,
  actions,
}: {
  part: Part;
  role: UIMessage['role'];
  streaming: boolean;
  actions: PartActions;
}): JSX.Element | null {
  if (part.type === 'text') {
    // The user's own words are shown as typed; the assistant's are Markdown.
    return role === 'user' ? (
      <p class="user-text">{part.text}</p>
    ) : (
      <Markdown text={part.text} streaming={streaming && part.state === 'streaming'} />
    );
  }
  if (part.type === 'reasoning') {
    const live = streaming && part.state === 'streaming';
    return (
      <details class="reasoning" open={live}>
        <summary>{live ? 'Thinking…' : 'Reasoning'}</summary>
        <div class="reasoning-text">{part.text}</div>
      </details>
    );
  }
  if (isToolUIPart(part)) return <ToolCard part={part} actions={actions} />;
  if (part.type === 'file') return <FilePart url={part.url} mediaType={part.mediaType} filename={part.filename} />;
  if (part.type === 'source-url') {
    const href = safeUrl(part.url);
    return <div class="source">Source: {href ? <a href={href} target="_blank" rel="noopener noreferrer nofollow">{part.title ?? part.url}</a> : part.url}</div>;
  }
  if (part.type === 'data-input-request') {
    const prompt = dataText(part.data, 'prompt') ?? 'The agent needs your answer.';
    return <InputRequest prompt={prompt} actions={actions} />;
  }
  if (part.type === 'data-agent-error') {
    return (
      <div class="card agent-error" role="alert">
        {/* errorText already says what failed ("Agent run failed: …"): no second label before it */}
        <strong>{dataText(part.data, 'errorText') ?? 'The agent failed.'}</strong>
        {dataText(part.data, 'code') && <span class="muted"> ({dataText(part.data, 'code')})</span>}
      </div>
    );
  }
  if (part.type === 'data-turnwire-interrupted') {
    return <div class="note">The answer was interrupted here.</div>;
  }
  if (part.type.startsWith('data-')) {
    const data = (part as { data?: unknown }).data;
    return (
      <details class="data-part">
        <summary>{part.type.slice(5)}</summary>
        <pre>{json(data)}</pre>
      </details>
    );
  }
  return null; // step-start, source-document and parts of later SDKs: nothing to show
}
