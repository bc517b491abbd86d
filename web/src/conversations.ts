// The conversations the sidebar lists: GET conversations (one page per request, newest activity
// first, with title and agent), PATCH to rename or record the agent, DELETE to delete.
import { apiUrl, authedFetch, getJson, HttpError } from './api';

export interface Conversation {
  id: string;
  name: string | null;
  title: string | null;
  agent: string | null;
  created_at: string;
  last_activity_at: string;
}

export interface ConversationPage {
  conversations: Conversation[];
  next_cursor: string | null;
}

/** The chat id a conversation is continued under (its session id, else its task id). */
export function chatIdOf(c: Conversation): string {
  return c.name ?? c.id;
}

export async function listConversations(opts: { cursor?: string | null; q?: string; limit?: number }): Promise<ConversationPage> {
  const params = new URLSearchParams({ limit: String(opts.limit ?? 30) });
  if (opts.cursor) params.set('cursor', opts.cursor);
  if (opts.q) params.set('q', opts.q);
  return getJson<ConversationPage>(`conversations?${params}`);
}

async function send(method: string, chatId: string, body?: unknown): Promise<Response> {
  const response = await authedFetch(apiUrl(`conversations/${encodeURIComponent(chatId)}`), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new HttpError(response.status, `HTTP ${response.status}`);
  return response;
}

export async function renameConversation(chatId: string, title: string): Promise<Conversation> {
  return (await send('PATCH', chatId, { title })).json();
}

export async function recordAgent(chatId: string, agent: string): Promise<void> {
  await send('PATCH', chatId, { agent });
}

export async function deleteConversation(chatId: string): Promise<void> {
  await send('DELETE', chatId);
}
