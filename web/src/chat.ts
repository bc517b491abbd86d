// The page's chat: the ai package's AbstractChat with a state that tells the UI when it changed,
// talking to turnwire over DefaultChatTransport. Nothing here parses the stream by hand.
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { AI_SDK_HEADERS, apiUrl, authedFetch } from './api';

/** The `ai` major this page bundles (package.json pins 7.0.173). */

/** Chat state the UI subscribes to; every change bumps `version` and notifies. */
class PageChatState implements ChatState<UIMessage> {
  version = 0;
  private _status: ChatStatus = 'ready';
  private _error: Error | undefined = undefined;
  private _messages: UIMessage[];
  private readonly listeners = new Set<() => void>();

  constructor(messages: UIMessage[]) {
    this._messages = messages;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    this.listeners.forEach((l) => l());
  }

  get status(): ChatStatus {
    return this._status;
  }
  set status(value: ChatStatus) {
    this._status = value;
    this.changed();
  }
  get error(): Error | undefined {
    return this._error;
  }
  set error(value: Error | undefined) {
    this._error = value;
    this.changed();
  }
  get messages(): UIMessage[] {
    return this._messages;
  }
  set messages(value: UIMessage[]) {
    this._messages = value;
    this.changed();
  }
  pushMessage = (message: UIMessage): void => {
    this.messages = this._messages.concat(message);
  };
  popMessage = (): void => {
    this.messages = this._messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage): void => {
    // The SDK mutates its working copy in place: keep a snapshot so renders see a stable value.
    this.messages = [...this._messages.slice(0, index), this.snapshot(message), ...this._messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

const STOPPED = 'turnwire.stopped';

/** The answers stopped in each conversation, by message id (the store keeps the partial answer,
 * not who ended it). */
const stoppedAnswers = {
  get(chatId: string): string[] {
    try {
      const ids = JSON.parse(localStorage.getItem(STOPPED) ?? '{}')[chatId];
      return Array.isArray(ids) ? ids.filter((i) => typeof i === 'string') : [];
    } catch {
      return [];
    }
  },
  set(chatId: string, ids: string[]): void {
    try {
      const map = JSON.parse(localStorage.getItem(STOPPED) ?? '{}');
      map[chatId] = ids.slice(-50);
      localStorage.setItem(STOPPED, JSON.stringify(map));
    } catch {
      // storage disabled: the note lasts until a reload
    }
  },
};

/** The path of an agent's chat route, relative to the page: `chat` for the default agent. */
export function chatPath(agent: string | null): string {
  return agent ? `agents/${encodeURIComponent(agent)}/chat` : 'chat';
}

// Stream resumption and stop are per chat id whatever the agent; a server without them answers
// 404/405, which for a reconnect means "nothing to resume" (the SDK would report an error).
const reconnectFetch: typeof fetch = async (input, init) => {
  const response = await authedFetch(input, init);
  if (response.status === 404 || response.status === 405) return new Response(null, { status: 204 });
  return response;
};

export class PageChat extends AbstractChat<UIMessage> {
  readonly pageState: PageChatState;
  readonly agent: string | null;
  /** Answers the user stopped (shown with a note; remembered in this browser across reloads). */
  readonly stoppedIds: Set<string>;

  constructor(id: string, agent: string | null, messages: UIMessage[] = []) {
    const state = new PageChatState(messages);
    const transport = new DefaultChatTransport<UIMessage>({
      api: apiUrl(chatPath(agent)),
      // The stream this client reads, whatever AI SDK version the server targets by default.
      headers: AI_SDK_HEADERS,
      fetch: (input, init) =>
        init?.method === 'GET' ? reconnectFetch(input, init) : authedFetch(input, init),
      prepareReconnectToStreamRequest: ({ id: chatId }) => ({
        api: apiUrl(`chat/${encodeURIComponent(chatId)}/stream`),
      }),
    });
    super({
      id,
      state,
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    this.pageState = state;
    this.agent = agent;
    this.stoppedIds = new Set(stoppedAnswers.get(id));
  }

  get busy(): boolean {
    return this.status === 'submitted' || this.status === 'streaming';
  }

  /** Stop the answer: the server's stop route (so the turn ends there too), then the local stream. */
  async stopAnswer(): Promise<void> {
    const stopped = authedFetch(apiUrl(`chat/${encodeURIComponent(this.id)}/stop`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => undefined); // no stop route (404) or offline: stopping locally is still right
    await Promise.all([stopped, this.stop()]);
    const last = this.lastMessage;
    if (last?.role === 'assistant') {
      this.stoppedIds.add(last.id);
      stoppedAnswers.set(this.id, [...this.stoppedIds]);
      this.pageState.messages = [...this.messages]; // re-render with the note
    }
  }
}
