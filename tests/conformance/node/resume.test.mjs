// Resumable streams on the real ai 7.0.173 chat client (AbstractChat + DefaultChatTransport):
// a long turn started at SERVER_URL, the client dropped mid-stream, a new chat for the same id
// (history loaded from the store, then resumeStream(), what useChat's `resume: true` does) at
// RESUME_URL — the same server, or another worker on the same PostgreSQL + Redis — ends with the
// full message, once. And a stopped turn: a reload shows the stored partial reply.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AbstractChat, DefaultChatTransport } from 'ai';

const SERVER_URL = process.env.SERVER_URL;
const RESUME_URL = process.env.RESUME_URL ?? SERVER_URL;
const AGENT = process.env.AGENT ?? 'long';
const WORDS = Number(process.env.WORDS ?? 200);
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_resume_node.py');

const FULL = Array.from({ length: WORDS }, (_, i) => `w${i} `).join('');

class TestState {
  constructor(messages = []) {
    this.status = 'ready';
    this.error = undefined;
    this.messages = messages;
    this.snapshot = (thing) => structuredClone(thing);
  }
  pushMessage = (message) => { this.messages = this.messages.concat(message); };
  popMessage = () => { this.messages = this.messages.slice(0, -1); };
  replaceMessage = (index, message) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
}

class TestChat extends AbstractChat {
  constructor({ messages, ...init }) {
    super({ ...init, state: new TestState(messages) });
  }
}

function newChat(base, id, messages = []) {
  return new TestChat({ id, messages, transport: new DefaultChatTransport({ api: `${base}/agents/${AGENT}/chat` }) });
}

async function until(predicate, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function assistantText(chat) {
  const last = chat.messages.at(-1);
  if (last?.role !== 'assistant') return '';
  return last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
}

async function history(base, id) {
  const response = await fetch(`${base}/tasks/${id}/messages?format=vercel`);
  assert.equal(response.status, 200);
  return (await response.json()).messages;
}

test('a dropped chat resumes its running turn and ends with the full message, once', async () => {
  const id = `resume-${Date.now()}`;
  const first = newChat(SERVER_URL, id);
  first.sendMessage({ text: String(WORDS) });
  // Past the store's first write (100 ms), so the reloaded history holds the user's message.
  await until(() => assistantText(first).length > 100);
  await first.stop(); // the client goes away (aborts its request); the turn runs on
  const seen = assistantText(first);
  assert.ok(seen.length > 0 && seen.length < FULL.length, 'dropped mid-stream');

  // A reload: the page loads the stored conversation, then resumes (useChat's `resume: true`).
  const second = newChat(RESUME_URL, id, await history(RESUME_URL, id));
  await second.resumeStream();
  await until(() => second.status === 'ready' || second.status === 'error');
  assert.equal(second.status, 'ready', String(second.error));
  assert.equal(second.messages.length, 2);
  assert.equal(second.messages[0].role, 'user');
  assert.equal(assistantText(second), FULL);

  // The turn is over: nothing to resume, and the store holds the same message.
  const third = newChat(RESUME_URL, id, structuredClone(second.messages));
  await third.resumeStream();
  assert.equal(third.status, 'ready');
  assert.deepEqual(third.messages, second.messages);
  const stored = await history(RESUME_URL, id);
  assert.equal(stored.at(-1).id, second.messages.at(-1).id);
  assert.equal(stored.at(-1).parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), FULL);
});

test('a stopped turn: a reload shows the stored partial reply', async () => {
  const id = `stop-${Date.now()}`;
  const chat = newChat(SERVER_URL, id);
  chat.sendMessage({ text: String(WORDS * 10) });
  await until(() => assistantText(chat).length > 10);
  // What a page's stop button does: stop the server's turn, then the client's request.
  const response = await fetch(`${RESUME_URL}/agents/${AGENT}/chat/${id}/stop`, { method: 'POST' });
  assert.deepEqual(await response.json(), { id, stopped: true });
  await until(() => chat.status === 'ready' || chat.status === 'error');
  assert.equal(chat.status, 'ready', String(chat.error));
  const said = assistantText(chat);

  const reloaded = newChat(RESUME_URL, id, await history(RESUME_URL, id));
  await reloaded.resumeStream(); // nothing runs any more: 204
  assert.equal(reloaded.status, 'ready');
  const stored = assistantText(reloaded);
  assert.ok(stored.length > 0 && stored.length < WORDS * 10 * 4, 'a partial reply');
  assert.equal(stored, said, 'the reload shows what the client had when the turn stopped');
});
