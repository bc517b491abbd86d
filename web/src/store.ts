// What the page remembers in the browser, and what it reads from the server about conversations.
import type { UIMessage } from 'ai';
import { AI_SDK_HEADERS, getJson, HttpError } from './api';

export interface AgentInfo {
  name: string;
  description: string;
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

/** The stored conversation of chat `chatId` as UIMessages; none if the server has no such task. */
export async function storedMessages(chatId: string, branch?: string): Promise<UIMessage[]> {
  try {
    const which = branch ? `&branch=${encodeURIComponent(branch)}` : '';
    const body = await getJson<{ messages: UIMessage[] }>(
      `tasks/${encodeURIComponent(chatId)}/messages?format=vercel${which}`,
      AI_SDK_HEADERS,
    );
    return body.messages;
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return [];
    throw error;
  }
}
