// HTTP to the turnwire server that served this page: URLs relative to the page's <base> (the mount
// prefix), and an API key asked once and sent as `Authorization: Bearer` when the server wants one.

const KEY_STORAGE = 'turnwire.apiKey';

/** The absolute URL of `path` under the page's mount prefix (`<base href>` set by the server). */
export function apiUrl(path: string): string {
  return new URL(path, document.baseURI).toString();
}

function storedKey(): string | null {
  try {
    return localStorage.getItem(KEY_STORAGE);
  } catch {
    return null; // storage disabled: ask every time the page loads
  }
}

let apiKey: string | null = storedKey();

/** A pending "please give me a key" question the UI shows; `answer(null)` gives up. */
export interface KeyQuestion {
  rejected: boolean;
  answer: (key: string | null) => void;
}

let question: KeyQuestion | null = null;
let asking: Promise<string | null> | null = null;
const listeners = new Set<() => void>();

export function currentKeyQuestion(): KeyQuestion | null {
  return question;
}

export function onKeyQuestion(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function ask(rejected: boolean): Promise<string | null> {
  // Several requests failing together share one question.
  asking ??= new Promise<string | null>((resolve) => {
    question = {
      rejected,
      answer: (key) => {
        question = null;
        asking = null;
        listeners.forEach((l) => l());
        resolve(key);
      },
    };
    listeners.forEach((l) => l());
  });
  return asking;
}

function withKey(init: RequestInit | undefined, key: string | null): RequestInit {
  const headers = new Headers(init?.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  return { ...init, headers };
}

/** `fetch` that sends the API key and, on 401, asks the user for one and retries. */
export async function authedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  for (;;) {
    const sent = apiKey;
    const response = await fetch(input, withKey(init, sent));
    if (response.status !== 401) return response;
    if (apiKey !== sent) continue; // another request got a new key meanwhile
    const key = await ask(sent !== null);
    if (key === null) return response;
    apiKey = key;
    try {
      localStorage.setItem(KEY_STORAGE, key);
    } catch {
      // kept in memory only
    }
  }
}

/** GET a JSON document; throws with the server's `detail` on an error status. */
/** The AI SDK major version this page is built with: the lane of `/chat` it asks for, and the
 * version stored conversations are read back for (an ai 7 chat keeps parts older ones do not). */
export const AI_SDK_MAJOR = '7';
export const AI_SDK_HEADERS = { 'x-ai-sdk-version': AI_SDK_MAJOR };

export async function getJson<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await authedFetch(apiUrl(path), { headers: { accept: 'application/json', ...headers } });
  if (!response.ok) throw new HttpError(response.status, await errorText(response));
  return (await response.json()) as T;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const detail = JSON.parse(text).detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail) && detail[0]?.msg) return String(detail[0].msg);
  } catch {
    // not JSON
  }
  return text || `HTTP ${response.status}`;
}
