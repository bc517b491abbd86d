// The page: a sidebar of conversations, the open chat, and the composer.
import { generateId, type UIMessage } from 'ai';
import type { JSX } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { currentKeyQuestion, HttpError, onKeyQuestion } from './api';
import { type Alternatives, alternatives, type Branch, chosenBranch, readBranches } from './branches';
import { CopyButton } from './copy';
import { PageChat } from './chat';
import { type PartActions, PartView } from './parts';
import { chatIdOf, recordAgent } from './conversations';
import { Sidebar } from './sidebar';
import { type AgentInfo, chatAgents, listAgents, storedMessages, titleOf, titles } from './store';

const DEMO_PROMPTS = ['weather in Paris', 'delete notes.txt', 'ask me', 'count to 50', 'fail'];

function hashChatId(): string | null {
  const id = decodeURIComponent(location.hash.replace(/^#/, ''));
  return /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : null;
}

function newChatId(): string {
  return `chat-${generateId()}`;
}

/** Re-render when the chat's state changes, at most once per frame while it streams. */
function useChatUpdates(chat: PageChat | null): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!chat) return;
    let frame = 0;
    const unsubscribe = chat.pageState.subscribe(() => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setTick((t) => t + 1);
      });
    });
    return () => {
      unsubscribe();
      cancelAnimationFrame(frame);
    };
  }, [chat]);
}

function useKeyQuestion() {
  const [question, setQuestion] = useState(currentKeyQuestion());
  useEffect(() => onKeyQuestion(() => setQuestion(currentKeyQuestion())), []);
  return question;
}

function KeyDialog(): JSX.Element | null {
  const question = useKeyQuestion();
  const [key, setKey] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [question]);
  if (!question) return null;
  return (
    <div class="overlay">
      <form
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="key-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) question.answer(key.trim());
          setKey('');
        }}
      >
        <h2 id="key-title">API key needed</h2>
        <p>
          {question.rejected
            ? 'The server did not accept that key. Try another one.'
            : 'This server asks for an API key. It is kept in this browser and sent with every request.'}
        </p>
        <input
          type="password"
          name="api-key"
          aria-label="API key"
          ref={input}
          autoComplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <div class="dialog-buttons">
          <button type="button" onClick={() => question.answer(null)}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={!key.trim()}>
            Use key
          </button>
        </div>
      </form>
    </div>
  );
}

function PaperclipIcon(): JSX.Element {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" />
    </svg>
  );
}

function Composer({
  chat,
  onSend,
  disabled,
}: {
  chat: PageChat;
  onSend: (text: string, files: FileList | null) => void;
  disabled: boolean;
}): JSX.Element {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<FileList | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const busy = chat.busy;
  const send = () => {
    if (busy || disabled || (!text.trim() && !files?.length)) return;
    onSend(text, files);
    setText('');
    setFiles(null);
    if (fileInput.current) fileInput.current.value = '';
  };
  useEffect(() => {
    // Ready to type on a desktop; on a touch screen focusing would pop up the keyboard unasked.
    if (matchMedia('(pointer: fine)').matches) textarea.current?.focus();
  }, [chat]);
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {files && files.length > 0 && (
        <div class="attachments">
          {Array.from(files).map((f) => (
            <span class="chip" key={f.name}>
              {f.name}
            </span>
          ))}
          <button
            type="button"
            class="link"
            onClick={() => {
              setFiles(null);
              if (fileInput.current) fileInput.current.value = '';
            }}
          >
            Remove
          </button>
        </div>
      )}
      <div class="composer-row">
        <label class="attach" title="Attach files">
          <input
            ref={fileInput}
            type="file"
            multiple
            class="visually-hidden"
            onChange={(e) => setFiles((e.target as HTMLInputElement).files)}
          />
          <PaperclipIcon />
          <span class="visually-hidden">Attach files</span>
        </label>
        <textarea
          ref={textarea}
          name="message"
          rows={1}
          placeholder="Message the agent…"
          aria-label="Message"
          aria-describedby="composer-hint"
          disabled={disabled}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            } else if (e.key === 'Escape' && busy) {
              e.preventDefault();
              void chat.stopAnswer();
            }
          }}
        />
        <span id="composer-hint" class="visually-hidden">
          Enter sends, Shift+Enter starts a new line, Escape stops the answer.
        </span>
        {busy ? (
          <button type="button" class="stop" onClick={() => void chat.stopAnswer()}>
            Stop
          </button>
        ) : (
          <button type="submit" class="primary" disabled={disabled || (!text.trim() && !files?.length)}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}

/** What the user may do with a message besides reading it. */
interface MessageTools {
  alternatives: Alternatives | null;
  /** Show another branch (a leaf of `alternatives.leaves`). */
  switchTo: (leaf: string) => void;
  /** Present when the answer may be asked for again (the last one, nothing running). */
  regenerate?: () => void;
  /** Present when the message may be edited and sent again (a user's, nothing running). */
  edit?: (text: string) => void;
}

function messageText(message: UIMessage): string {
  return message.parts
    .map((p) => (p.type === 'text' ? p.text : ''))
    .filter((t) => t)
    .join('\n\n');
}

function BranchSwitch({ alt, switchTo }: { alt: Alternatives; switchTo: (leaf: string) => void }): JSX.Element {
  return (
    <span class="branch-switch" role="group" aria-label="Branches">
      <button
        type="button"
        class="icon-button"
        aria-label="Previous branch"
        disabled={alt.index === 0}
        onClick={() => switchTo(alt.leaves[alt.index - 1])}
      >
        ‹
      </button>
      <span class="branch-count">
        {alt.index + 1} / {alt.count}
      </span>
      <button
        type="button"
        class="icon-button"
        aria-label="Next branch"
        disabled={alt.index === alt.count - 1}
        onClick={() => switchTo(alt.leaves[alt.index + 1])}
      >
        ›
      </button>
    </span>
  );
}

function EditForm({ text, onSend, onCancel }: { text: string; onSend: (text: string) => void; onCancel: () => void }): JSX.Element {
  const [value, setValue] = useState(text);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    box.current?.focus();
    box.current?.setSelectionRange(value.length, value.length);
  }, []);
  return (
    <form
      class="edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onSend(value);
      }}
    >
      <textarea
        ref={box}
        aria-label="Edit your message"
        rows={Math.min(8, value.split('\n').length + 1)}
        value={value}
        onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            if (value.trim()) onSend(value);
          }
        }}
      />
      <div class="edit-buttons">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={!value.trim()}>
          Save and send
        </button>
      </div>
    </form>
  );
}

function Message({
  message,
  streaming,
  stopped,
  actions,
  tools,
}: {
  message: UIMessage;
  streaming: boolean;
  stopped: boolean;
  actions: PartActions;
  tools: MessageTools;
}): JSX.Element {
  const [editing, setEditing] = useState(false);
  const text = messageText(message);
  // An agent that says its question and also asks it (a text, then the input request with the same
  // prompt): the question is shown once, in its card.
  const asked = new Set(
    message.parts.flatMap((p) =>
      p.type === 'data-input-request' && typeof (p.data as { prompt?: unknown })?.prompt === 'string'
        ? [((p.data as { prompt: string }).prompt).trim()]
        : [],
    ),
  );
  return (
    <article class={`msg ${message.role}`} data-message-id={message.id} aria-label={`${message.role} message`}>
      {editing && tools.edit ? (
        <EditForm
          text={text}
          onCancel={() => setEditing(false)}
          onSend={(t) => {
            setEditing(false);
            tools.edit?.(t);
          }}
        />
      ) : (
        <div class="bubble">
          {message.parts.map((part, i) =>
            part.type === 'text' && asked.has(part.text.trim()) ? null : (
              <PartView key={i} part={part} role={message.role} streaming={streaming} actions={actions} />
            ),
          )}
          {streaming && message.parts.every((p) => p.type === 'step-start') && (
            <span class="typing" aria-label="The agent is answering">
              <i />
              <i />
              <i />
            </span>
          )}
          {stopped && <div class="note">You stopped this answer.</div>}
        </div>
      )}
      {!streaming && !editing && (
        <div class="msg-actions">
          {tools.alternatives && <BranchSwitch alt={tools.alternatives} switchTo={tools.switchTo} />}
          {text && <CopyButton text={text} label="Copy" />}
          {tools.edit && (
            <button type="button" class="icon-button" aria-label="Edit message" title="Edit message" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          {tools.regenerate && (
            <button type="button" class="icon-button" aria-label="Regenerate" title="Regenerate" onClick={tools.regenerate}>
              Regenerate
            </button>
          )}
        </div>
      )}
    </article>
  );
}

// What browsers say when a request never got an answer (server down, network gone).
const TRANSPORT_FAILURE = /failed to fetch|networkerror|load failed|network request failed|network connection was lost/i;

/** An error as a sentence: the server's JSON `detail` rather than the raw body the SDK reports. */
function errorText(error: Error): string {
  if (TRANSPORT_FAILURE.test(error.message)) {
    return 'The server could not be reached. Check that it is running and the network is up, then retry.';
  }
  try {
    const detail = JSON.parse(error.message)?.detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return detail.map((d) => d?.msg ?? JSON.stringify(d)).join('; ');
  } catch {
    // not JSON: the message is already text
  }
  return error.message;
}

function errorShownInMessages(messages: UIMessage[], error: Error): boolean {
  const last = messages[messages.length - 1];
  return !!last?.parts.some(
    (p) => p.type === 'data-agent-error' && (p.data as { errorText?: string })?.errorText === error.message,
  );
}

export function App({ defaultAgent }: { defaultAgent: string }): JSX.Element {
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [agent, setAgent] = useState(defaultAgent);
  const [chat, setChat] = useState<PageChat | null>(null);
  // Bumped when the sidebar should read the conversations again.
  const [listed, setListed] = useState(0);
  // Every branch of the open conversation, when it has several (for the ‹ 2 / 3 › switches).
  const [branches, setBranches] = useState<Branch[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const log = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const opening = useRef(0);
  const agentNoted = useRef(new Set<string>());
  const openedFor = useRef(0);
  const chatRef = useRef<PageChat | null>(null);
  chatRef.current = chat;
  // While another conversation loads, the one still shown takes no message: it would go to the wrong
  // conversation (e.g. typed right after a hash change, before the stored history has arrived).
  const [loading, setLoading] = useState(false);
  useChatUpdates(chat);

  const refreshTasks = useCallback(() => setListed((n) => n + 1), []);

  // `push`: a conversation the user opened gets its own history entry, so Back returns to the last one.
  const openChat = useCallback(
    async (chatId: string | null, agentName?: string, push = true) => {
      const attempt = ++opening.current;
      setLoading(true);
      setSidebarOpen(false);
      setProblem(null);
      const id = chatId ?? newChatId();
      let messages: UIMessage[] = [];
      let found: Branch[] = [];
      // The branch shown last time (a reload shows it again), else the latest.
      const leaf = chatId ? chosenBranch.get(chatId) : undefined;
      if (chatId) {
        try {
          messages = await storedMessages(chatId, leaf).catch((error) => {
            if (leaf && error instanceof HttpError && error.status === 400) {
              chosenBranch.set(chatId, null); // that branch is gone: show the latest
              return storedMessages(chatId);
            }
            throw error;
          });
          found = await readBranches(chatId).catch(() => []);
        } catch (error) {
          setProblem(`Could not load the conversation: ${(error as Error).message}`);
        }
      }
      if (attempt !== opening.current) return; // the user opened another one meanwhile
      openedFor.current = attempt;
      setLoading(false);
      setBranches(found);
      const name = agentName ?? chatAgents.get(id) ?? defaultAgent;
      const next = new PageChat(id, name === defaultAgent ? null : name, messages);
      setAgent(name);
      // A conversation left mid-answer is not stopped: its answer still ends up in the store.
      setChat(next);
      if (hashChatId() !== id) {
        const url = `#${encodeURIComponent(id)}`;
        if (push && hashChatId() !== null) history.pushState(null, '', url);
        else history.replaceState(null, '', url);
      }
      stickToBottom.current = true;
      // resume: true — pick up an answer still being written (e.g. the page was reloaded mid-answer);
      // an older branch has nothing running.
      const older = found.some((b) => b.leaf === chosenBranch.get(id) && !b.latest);
      if (messages.length && !older) void next.resumeStream();
    },
    [defaultAgent],
  );

  useEffect(() => {
    listAgents()
      .then(setAgents)
      .catch(() => setAgents([{ name: defaultAgent, description: defaultAgent }]));
    void openChat(hashChatId(), undefined, false);
    const onHash = () => {
      const id = hashChatId();
      if (id) void openChat(id, undefined, false);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const status = chat?.status;
  const lastStatus = useRef(status);
  useEffect(() => {
    // A conversation moves to the top of the sidebar when its answer starts and when it ends
    // (not when a chat is opened ready: the sidebar has just read the list).
    const before = lastStatus.current;
    lastStatus.current = status;
    const ended = (status === 'ready' || status === 'error') && (before === 'submitted' || before === 'streaming');
    if (status === 'streaming' || ended) refreshTasks();
    // A new conversation's first answer has begun: its task exists now, so its agent can be noted
    // on it (other browsers then continue it with the same agent).
    // (A quick answer may go from submitted to ready within one frame: 'streaming' is never seen.)
    const answered = status === 'streaming' || status === 'ready';
    if (answered && chat && chat.messages.length === 2 && !agentNoted.current.has(chat.id)) {
      agentNoted.current.add(chat.id);
      void recordAgent(chat.id, chat.agent ?? defaultAgent).catch(() => undefined);
    }
    // An answer ended: an edit or a regenerate may have made a branch.
    if (status === 'ready' && chat?.messages.length) {
      const id = chat.id;
      readBranches(id)
        .then((found) => {
          if (opening.current === openedFor.current && chatRef.current?.id === id) setBranches(found);
        })
        .catch(() => undefined);
    }
  }, [status, chat]);

  useLayoutEffect(() => {
    const el = log.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  });

  const messages = chat?.messages ?? [];
  const last = messages[messages.length - 1];
  const actions = useMemo(
    () => ({
      approve: (approvalId: string, approved: boolean) => {
        // Only the latest message's approvals can still be answered: one the conversation moved
        // past would change only this page, never the server.
        const latest = chat?.lastMessage;
        const open = latest?.parts.some((p) => 'approval' in p && (p as { approval?: { id?: string } }).approval?.id === approvalId);
        if (open) void chat?.addToolApprovalResponse({ id: approvalId, approved });
      },
      answer: (text: string) => {
        void chat?.sendMessage({ text });
      },
    }),
    [chat],
  );

  const send = (text: string, files: FileList | null) => {
    if (!chat || loading) return;
    if (!chat.messages.length) {
      titles.set(chat.id, titleOf(text || files?.[0]?.name || 'Files'));
      chatAgents.set(chat.id, agent);
    }
    stickToBottom.current = true;
    chosenBranch.set(chat.id, null); // the answer goes on the latest branch, which is then shown
    void chat.sendMessage(files?.length ? { text, files } : { text });
  };

  // Ask again for the answer the error cut off (the last user message stays as it is).
  const retry = () => {
    if (!chat || chat.busy) return;
    chat.clearError();
    stickToBottom.current = true;
    void chat.regenerate();
  };

  // The same conversation, from now on with another agent.
  const continueWith = (name: string) => {
    if (!chat || chat.busy) return;
    chatAgents.set(chat.id, name);
    void recordAgent(chat.id, name).catch(() => undefined);
    void openChat(chat.id, name, false);
  };

  const switchBranch = (leaf: string) => {
    if (!chat || chat.busy) return;
    chosenBranch.set(chat.id, leaf);
    void openChat(chat.id, agent, false);
  };

  const regenerate = () => {
    if (!chat || chat.busy) return;
    chosenBranch.set(chat.id, null);
    stickToBottom.current = true;
    void chat.regenerate();
  };

  const editAndSend = (index: number, text: string) => {
    if (!chat || chat.busy) return;
    const files = chat.messages[index].parts.filter((p) => p.type === 'file');
    chosenBranch.set(chat.id, null);
    stickToBottom.current = true;
    // The edited message is a new message (a new id) after the ones before it: the server sees the
    // history diverge there and stores the rest as a new branch.
    chat.messages = chat.messages.slice(0, index);
    void chat.sendMessage(files.length ? { text, files } : { text });
  };

  const error = chat?.error;
  const busy = chat?.busy ?? false;
  const alts = useMemo(() => alternatives(messages, branches), [messages, branches]);
  return (
    <div class="layout">
      {sidebarOpen && <div class="backdrop" aria-hidden="true" onClick={() => setSidebarOpen(false)} />}
      <Sidebar
        activeId={chat?.id ?? null}
        open={sidebarOpen}
        refresh={listed}
        onClose={() => setSidebarOpen(false)}
        onOpen={(c) => {
          const id = chatIdOf(c);
          void openChat(id, chatAgents.get(id) ?? c.agent ?? undefined);
        }}
        onNew={() => void openChat(null, agent)}
        onDeleted={(id) => {
          if (id === chat?.id) void openChat(null, agent);
        }}
      />
      <main class="main">
        <header class="topbar">
          <button
            type="button"
            class="menu"
            aria-label="Conversations"
            aria-expanded={sidebarOpen}
            onClick={() => setSidebarOpen(!sidebarOpen)}
          >
            ☰
          </button>
          <h1>turnwire</h1>
          <label class="agent-picker">
            <span>Agent</span>
            <select
              aria-label="Agent"
              value={agent}
              onChange={(e) => void openChat(null, (e.target as HTMLSelectElement).value)}
            >
              {(agents.length ? agents : [{ name: agent, description: agent }]).map((a) => (
                <option key={a.name} value={a.name} title={a.description}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <span class={`status status-${status ?? 'ready'}`} role="status">
            {status === 'submitted' ? 'Sending…' : status === 'streaming' ? 'Answering…' : ''}
          </span>
        </header>
        <div
          class="log"
          ref={log}
          aria-live="polite"
          aria-busy={busy}
          onScroll={(e) => {
            const el = e.currentTarget;
            stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
          }}
        >
          {problem && (
            <div class="card agent-error" role="alert">
              {problem}
            </div>
          )}
          {agents.length > 0 && !agents.some((a) => a.name === agent) && chat && (
            <div class="card agent-missing" role="status">
              <p>
                This conversation was with the agent <strong>{agent}</strong>, which this server does not serve.
                Continue it with:
              </p>
              <div class="suggestions">
                {agents.map((a) => (
                  <button type="button" key={a.name} onClick={() => continueWith(a.name)}>
                    {a.name}
                  </button>
                ))}
              </div>
            </div>
          )}
          {messages.length === 0 && (
            <div class="empty-chat">
              <p>
                Talk to <strong>{agent}</strong>.
              </p>
              {agent === 'demo' && (
                <div class="suggestions">
                  {DEMO_PROMPTS.map((prompt) => (
                    <button type="button" key={prompt} onClick={() => send(prompt, null)}>
                      {prompt}
                    </button>
                  ))}
                </div>
              )}
            </div>
          )}
          {messages.map((message, i) => (
            <Message
              key={message.id}
              message={message}
              streaming={busy && message === last}
              stopped={chat?.stoppedIds.has(message.id) ?? false}
              actions={{ ...actions, awaitingUser: message === last && !busy, movedPast: message !== last }}
              tools={{
                alternatives: busy ? null : (alts[i] ?? null),
                switchTo: switchBranch,
                regenerate: !busy && message === last && message.role === 'assistant' ? regenerate : undefined,
                edit: !busy && message.role === 'user' ? (text: string) => editAndSend(i, text) : undefined,
              }}
            />
          ))}
          {status === 'submitted' && last?.role === 'user' && (
            <article class="msg assistant">
              <div class="bubble">
                <span class="typing" aria-label="Waiting for the agent">
                  <i />
                  <i />
                  <i />
                </span>
              </div>
            </article>
          )}
          {error && !errorShownInMessages(messages, error) && (
            <div class="card agent-error" role="alert">
              <strong>Error:</strong> {errorText(error)}{' '}
              <button type="button" class="link" onClick={retry}>
                Retry
              </button>{' '}
              <button type="button" class="link" onClick={() => chat?.clearError()}>
                Dismiss
              </button>
            </div>
          )}
        </div>
        {chat && <Composer chat={chat} onSend={send} disabled={loading} />}
      </main>
      <KeyDialog />
    </div>
  );
}
