// What the page remembers in the browser, and what it reads from the server about conversations.
import type { UIMessage } from 'ai';
import { getJson, HttpError } from './api';

export interface AgentInfo {
  name: string;
  description: string;
}

export interface TaskRow {
  id: string;
  name: string | null;
  created_at: string;
}

const TITLES = 'turnwire.titles';
const AGENTS = 'turnwire.chatAgents';

function readMap(key: string): Record<string, string> {
  try {
    const value = JSON.parse(localStorage.getItem(key) ?? '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

function writeEntry(key: string, id: string, value: string): void {
  try {
    const map = readMap(key);
    map[id] = value;
    localStorage.setItem(key, JSON.stringify(map));
  } catch {
    // storage full or disabled: the sidebar falls back to the server's first message
  }
}

export const titles = {
  get: (chatId: string): string | undefined => readMap(TITLES)[chatId],
  set: (chatId: string, title: string): void => writeEntry(TITLES, chatId, title),
};

/** Which agent a conversation was started with (tasks do not record it). */
export const chatAgents = {
  get: (chatId: string): string | undefined => readMap(AGENTS)[chatId],
  set: (chatId: string, agent: string): void => writeEntry(AGENTS, chatId, agent),
};

export function titleOf(text: string): string {
  const line = text.trim().split('\n')[0].replace(/^(#+|>|[-*+])\s+/, '');
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

export async function listAgents(): Promise<AgentInfo[]> {
  return getJson<AgentInfo[]>('agents');
}

export async function listTasks(): Promise<TaskRow[]> {
  return getJson<TaskRow[]>('tasks?limit=50&order_by=created_at&order_direction=desc');
}

/** The stored conversation of chat `chatId` as UIMessages; none if the server has no such task. */
export async function storedMessages(chatId: string, branch?: string): Promise<UIMessage[]> {
  try {
    const which = branch ? `&branch=${encodeURIComponent(branch)}` : '';
    const body = await getJson<{ messages: UIMessage[] }>(
      `tasks/${encodeURIComponent(chatId)}/messages?format=vercel${which}`,
    );
    return body.messages;
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return [];
    throw error;
  }
}

/** A conversation's title from its first stored message (for conversations this browser did not start). */
export async function fetchTitle(taskId: string): Promise<string | undefined> {
  const rows = await getJson<{ content?: { type?: string; content?: unknown } }[]>(
    `messages?task_id=${encodeURIComponent(taskId)}&limit=5&order_direction=asc`,
  );
  // The first text: a message may start with the files the user attached.
  for (const row of rows) {
    const text = row.content?.type === 'text' ? row.content.content : undefined;
    if (typeof text === 'string' && text.trim()) return titleOf(text);
  }
  return undefined;
}
