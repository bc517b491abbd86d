// Branches of a conversation (one per edit or regenerate, GET tasks/{id}/branches), and where the
// shown one forks from the others: the page puts `‹ 2 / 3 ›` on each message that has alternatives.
import type { UIMessage } from 'ai';
import { AI_SDK_HEADERS, getJson, HttpError } from './api';

interface BranchRow {
  leaf_id: string;
  fork_id: string | null;
  created_at: string;
  latest: boolean;
}

/** One branch, read whole: its leaf (the `?branch=` to read it again) and its messages. */
export interface Branch {
  leaf: string;
  latest: boolean;
  messages: UIMessage[];
}

/** At one message: which of `count` alternatives is shown, and the branch each one continues on. */
export interface Alternatives {
  index: number;
  count: number;
  leaves: string[];
}

const CHOSEN = 'turnwire.branches';

function chosenMap(): Record<string, string> {
  try {
    const value = JSON.parse(localStorage.getItem(CHOSEN) ?? '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/** The branch the user last switched to in a conversation (a reload shows it again). */
export const chosenBranch = {
  get: (chatId: string): string | undefined => chosenMap()[chatId],
  set: (chatId: string, leaf: string | null): void => {
    try {
      const map = chosenMap();
      if (leaf) map[chatId] = leaf;
      else delete map[chatId];
      localStorage.setItem(CHOSEN, JSON.stringify(map));
    } catch {
      // storage disabled: a reload shows the latest branch
    }
  },
};

/** Every branch of conversation `chatId` with its messages; none when it has only one (or none). */
export async function readBranches(chatId: string): Promise<Branch[]> {
  let rows: BranchRow[];
  try {
    rows = (await getJson<{ branches: BranchRow[] }>(`tasks/${encodeURIComponent(chatId)}/branches`)).branches;
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return [];
    throw error;
  }
  if (rows.length < 2) return [];
  return Promise.all(
    rows.map(async (row) => ({
      leaf: row.leaf_id,
      latest: row.latest,
      messages: (
        await getJson<{ messages: UIMessage[] }>(
          `tasks/${encodeURIComponent(chatId)}/messages?format=vercel&branch=${encodeURIComponent(row.leaf_id)}`,
          AI_SDK_HEADERS,
        )
      ).messages,
    })),
  );
}

/** What makes two messages the same message on two branches: its id, role and words. */
function key(message: UIMessage): string {
  const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\u0000');
  return `${message.role}\u0000${message.id}\u0000${text}`;
}

/**
 * For each message of `shown`, its alternatives among `branches`: the branches that agree with
 * `shown` on every earlier message, grouped by what they have at this one. Groups are in branch
 * order (oldest first); each continues on its newest branch.
 */
export function alternatives(shown: UIMessage[], branches: Branch[]): (Alternatives | null)[] {
  let agreeing = branches;
  return shown.map((message, i) => {
    const groups = new Map<string, string>();
    for (const branch of agreeing) {
      const at = branch.messages[i];
      if (at) groups.set(key(at), branch.leaf); // later (newer) branches win within a group
    }
    const mine = key(message);
    const keys = [...groups.keys()];
    agreeing = agreeing.filter((b) => b.messages[i] && key(b.messages[i]) === mine);
    const index = keys.indexOf(mine);
    if (keys.length < 2 || index < 0) return null;
    return { index, count: keys.length, leaves: keys.map((k) => groups.get(k) as string) };
  });
}
