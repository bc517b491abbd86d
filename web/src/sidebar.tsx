// The sidebar: conversations newest activity first, loaded a page at a time as it scrolls, a
// search box, and Rename / Delete (with a confirmation) on each.
import type { JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  type Conversation,
  chatIdOf,
  deleteConversation,
  listConversations,
  renameConversation,
} from './conversations';
import { titles } from './store';

const PAGE = 30;

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

function Row({
  conversation,
  active,
  onOpen,
  onRenamed,
  onDeleted,
}: {
  conversation: Conversation;
  active: boolean;
  onOpen: () => void;
  onRenamed: (c: Conversation) => void;
  onDeleted: () => void;
}): JSX.Element {
  const chatId = chatIdOf(conversation);
  const title = conversation.title ?? titles.get(chatId) ?? chatId;
  const [mode, setMode] = useState<'show' | 'rename' | 'confirm'>('show');
  const [draft, setDraft] = useState(title);
  const [failed, setFailed] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (mode === 'rename') input.current?.select();
  }, [mode]);
  if (mode === 'rename') {
    return (
      <li class="conversation editing">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const next = draft.trim();
            if (!next || next === title) return setMode('show');
            renameConversation(chatId, next)
              .then((c) => {
                titles.set(chatId, next);
                onRenamed(c);
                setMode('show');
              })
              .catch(() => setFailed(true));
          }}
        >
          <input
            ref={input}
            aria-label="New title"
            value={draft}
            maxLength={200}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                e.stopPropagation();
                setMode('show');
              }
            }}
          />
          {failed && <span class="muted">Could not rename.</span>}
        </form>
      </li>
    );
  }
  return (
    <li class="conversation">
      <button type="button" class="task" aria-current={active ? 'page' : undefined} onClick={onOpen}>
        <span class="task-title">{title}</span>
        <time dateTime={conversation.last_activity_at}>{when(conversation.last_activity_at)}</time>
      </button>
      {mode === 'confirm' ? (
        <div class="confirm" role="group" aria-label={`Delete ${title}?`}>
          <span>Delete this conversation?</span>
          <button
            type="button"
            class="danger"
            onClick={() =>
              deleteConversation(chatId)
                .then(onDeleted)
                .catch(() => setFailed(true))
            }
          >
            Yes, delete
          </button>
          <button type="button" onClick={() => setMode('show')}>
            Cancel
          </button>
          {failed && <span class="muted">Could not delete.</span>}
        </div>
      ) : (
        <span class="row-actions">
          <button
            type="button"
            class="icon-button"
            aria-label="Rename"
            title="Rename"
            onClick={() => {
              setDraft(title);
              setFailed(false);
              setMode('rename');
            }}
          >
            <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
              <path d="M12 20h9" />
              <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z" />
            </svg>
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label="Delete"
            title="Delete"
            onClick={() => {
              setFailed(false);
              setMode('confirm');
            }}
          >
            <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
              <path d="M3 6h18" />
              <path d="M8 6V4h8v2" />
              <path d="M19 6l-1 14H6L5 6" />
            </svg>
          </button>
        </span>
      )}
    </li>
  );
}

export function Sidebar({
  activeId,
  open,
  refresh,
  onOpen,
  onNew,
  onClose,
  onDeleted,
}: {
  activeId: string | null;
  open: boolean;
  /** Changes when the list should be read again (an answer ended somewhere). */
  refresh: number;
  onOpen: (c: Conversation) => void;
  onNew: () => void;
  onClose: () => void;
  onDeleted: (chatId: string) => void;
}): JSX.Element {
  const [rows, setRows] = useState<Conversation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [loaded, setLoaded] = useState(false);
  const loading = useRef(false);
  const generation = useRef(0);
  // Bumped as each page lands: the end of the list is watched again, so a page asked for and
  // then overtaken by a reload (same cursor, sentinel still in view) is asked for once more.
  const [landed, setLanded] = useState(0);
  const asked = useRef(query);
  const first = useRef<HTMLButtonElement>(null);
  const sentinel = useRef<HTMLLIElement>(null);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  useEffect(() => {
    // Opened over the chat (phones): the keyboard goes with it; Escape closes it.
    if (open) first.current?.focus();
  }, [open]);

  // The first page again (as many rows as are shown, so scrolling back is not lost).
  const reload = useCallback((q: string) => {
    const attempt = ++generation.current;
    const limit = Math.min(100, Math.max(PAGE, rowsRef.current.length));
    listConversations({ q, limit })
      .then((page) => {
        if (attempt !== generation.current) return;
        setRows(page.conversations);
        setCursor(page.next_cursor);
        setLoaded(true);
        setLanded((n) => n + 1);
      })
      .catch(() => setLoaded(true)); // the sidebar is a convenience: the chat works without it
  }, []);

  useEffect(() => reload(query), [refresh]);
  useEffect(() => {
    if (query === asked.current) return; // this query's first page is already asked for
    asked.current = query;
    const timer = setTimeout(() => reload(query), 200); // typing: one request per pause
    return () => clearTimeout(timer);
  }, [query]);

  const more = useCallback(() => {
    if (!cursor || loading.current) return;
    loading.current = true;
    const attempt = generation.current;
    listConversations({ q: query, cursor, limit: PAGE })
      .then((page) => {
        if (attempt !== generation.current) return setLanded((n) => n + 1); // overtaken: ask again
        const known = new Set(rowsRef.current.map((r) => r.id));
        setRows([...rowsRef.current, ...page.conversations.filter((c) => !known.has(c.id))]);
        setCursor(page.next_cursor);
        setLanded((n) => n + 1);
      })
      .catch(() => undefined)
      .finally(() => {
        loading.current = false;
      });
  }, [cursor, query]);

  useEffect(() => {
    // Infinite scroll: the next page when the end of the list comes into view.
    const end = sentinel.current;
    if (!end || !cursor) return;
    const watcher = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) more();
    });
    watcher.observe(end);
    return () => watcher.disconnect();
  }, [cursor, more, landed]);

  return (
    <nav
      class={`sidebar${open ? ' open' : ''}`}
      aria-label="Conversations"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <button type="button" class="new-chat" ref={first} onClick={onNew}>
        + New chat
      </button>
      <input
        type="search"
        class="search"
        aria-label="Search conversations"
        placeholder="Search conversations"
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
      />
      <h2 class="sidebar-title">Conversations</h2>
      <ul class="tasks">
        {rows.map((c) => (
          <Row
            key={c.id}
            conversation={c}
            active={chatIdOf(c) === activeId}
            onOpen={() => onOpen(c)}
            onRenamed={(next) => setRows(rowsRef.current.map((r) => (r.id === next.id ? next : r)))}
            onDeleted={() => {
              setRows(rowsRef.current.filter((r) => r.id !== c.id));
              onDeleted(chatIdOf(c));
            }}
          />
        ))}
        {loaded && rows.length === 0 && (
          <li class="muted empty">{query ? 'No conversation matches.' : 'No conversations yet.'}</li>
        )}
        {cursor && (
          <li ref={sentinel} class="muted empty more">
            Loading more…
          </li>
        )}
      </ul>
    </nav>
  );
}
