// One conversation across front doors (driven by tests/integration/store_e2e): the real useChat
// code path (AbstractChat + DefaultChatTransport, ai 7) on /chat at SERVER_URL under SESSION_ID.
// MODE=start: a new chat says two things. MODE=reload: the chat is rebuilt from the stored history
// (GET /tasks/{id}/messages?format=vercel), which must pass validateUIMessages, and goes on.
// The chat's final messages are written to OUT_FILE for the Python side to compare.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { AbstractChat, DefaultChatTransport, validateUIMessages } from 'ai';

const { SERVER_URL, SESSION_ID, MODE, OUT_FILE } = process.env;
if (!SERVER_URL || !SESSION_ID || !MODE || !OUT_FILE) {
  throw new Error('SERVER_URL, SESSION_ID, MODE and OUT_FILE must be set (see tests/integration/store_e2e)');
}

class State {
  constructor(messages) {
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

class Chat extends AbstractChat {
  constructor(messages) {
    super({
      id: SESSION_ID,
      state: new State(messages),
      transport: new DefaultChatTransport({ api: SERVER_URL + '/chat' }),
    });
  }
}

async function settled(chat, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (chat.status !== 'ready' && chat.status !== 'error') {
    if (Date.now() > deadline) throw new Error(`chat still ${chat.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return chat.status;
}

async function say(chat, text) {
  await chat.sendMessage({ text });
  assert.equal(await settled(chat), 'ready', String(chat.error));
}

test(`conversation through useChat (${MODE})`, async () => {
  let initial = [];
  if (MODE === 'reload') {
    const r = await fetch(`${SERVER_URL}/tasks/${SESSION_ID}/messages?format=vercel`);
    assert.equal(r.status, 200);
    initial = (await r.json()).messages;
    await validateUIMessages({ messages: initial });
  }
  const chat = new Chat(initial);
  if (MODE === 'start') {
    await say(chat, 'hello there');
    await say(chat, 'weather in Paris');
  } else {
    await say(chat, 'bye now');
  }
  await validateUIMessages({ messages: chat.messages });
  writeFileSync(OUT_FILE, JSON.stringify(chat.messages));
});
