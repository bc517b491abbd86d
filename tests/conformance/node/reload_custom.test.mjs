// An AI SDK 7 chat keeps an agent's custom events as `custom` parts of the assistant message; a
// reload must show them too. The real ai 7.0.173 chat client (AbstractChat + DefaultChatTransport,
// `x-ai-sdk-version: 7`) against a live turnwire server with a store at SERVER_URL (the `customs`
// agent of tests/conformance/test_reload_node.py): the client's messages equal
// GET /tasks/<chat id>/messages?format=vercel read with the same header, byte for byte (keys
// sorted) once the streaming states of text parts are removed; a v6 chat, which gets no custom
// part, equals its own v6 read; the batch answer for v7 is the streamed message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultChatTransport } from 'ai';
import { TestChat, settled } from './chat_harness.mjs';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_reload_node.py');
const API = `${SERVER_URL}/agents/customs`;

function newChat(id, version, onData) {
  return new TestChat({
    id,
    transport: new DefaultChatTransport({ api: `${API}/chat`, headers: { 'x-ai-sdk-version': version } }),
    onData,
  });
}

/** JSON with every object's keys sorted (undefined values left out, as in any JSON the client sends). */
function canonical(value) {
  return JSON.stringify(value, (key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v);
}

function withoutStreamingStates(messages) {
  return messages.map((m) => ({
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'text' && p.type !== 'reasoning') return p;
      const { state, ...rest } = p;
      return rest;
    }),
  }));
}

async function stored(chatId, version) {
  const headers = version === undefined ? {} : { 'x-ai-sdk-version': version };
  const response = await fetch(`${SERVER_URL}/tasks/${chatId}/messages?format=vercel`, { headers });
  assert.equal(response.status, 200);
  return (await response.json()).messages;
}

async function twoTurns(chat) {
  for (const text of ['first', 'second']) {
    await chat.sendMessage({ text });
    assert.equal(await settled(chat), 'ready', String(chat.error));
  }
}

test('an ai 7 chat with custom parts equals its reload read for ai 7', async () => {
  const chat = newChat(`custom7-${Date.now()}`, '7');
  await twoTurns(chat);
  const answer = chat.messages[3];
  // Where ai 7 put the parts of the `customs` turn: custom events before the call, beside the
  // text (around a source) and after the answer's last text.
  assert.deepEqual(answer.parts.map((p) => p.type), [
    'step-start', 'custom', 'tool-lookup', 'step-start', 'text', 'custom', 'source-url', 'text', 'custom',
  ]);
  assert.deepEqual(answer.parts[1], { type: 'custom', kind: 'acme.plan', providerMetadata: { turnwire: { data: { n: 2 } } } });
  assert.equal(answer.parts[5].kind, 'acme.mark');
  assert.equal(answer.parts[5].providerMetadata, undefined);

  const client = canonical(withoutStreamingStates(chat.messages));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id, '7'))), client);

  // Without the header (the server's default setting) and for ai 6 the history has no custom part.
  const customless = canonical(withoutStreamingStates(chat.messages.map(
    (m) => ({ ...m, parts: m.parts.filter((p) => p.type !== 'custom') }))));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id))), customless);
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id, '6'))), customless);
});

test('a chat on the 6 lane, which gets custom events as transient data, equals its reload read for 6', async () => {
  const notices = [];
  const chat = newChat(`custom6-${Date.now()}`, '6', (part) => notices.push(part));
  await twoTurns(chat);
  assert.ok(notices.some((p) => p.type === 'data-custom' && p.data.kind === 'acme.plan'));
  assert.ok(chat.messages.every((m) => m.parts.every((p) => p.type !== 'custom' && p.type !== 'data-custom')));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id, '6'))), canonical(withoutStreamingStates(chat.messages)));
});

test('the ai 7 batch answer is the streamed message, custom parts and all', async () => {
  const chat = newChat(`custom7b-${Date.now()}`, '7');
  await twoTurns(chat);
  const session = `custom7-batch-${Date.now()}`;
  const sent = [];
  for (const [n, text] of ['first', 'second'].entries()) {
    sent.push({ id: `u${n}`, role: 'user', parts: [{ type: 'text', text }] });
    const response = await fetch(`${API}/invoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-ag-messages-format': 'vercel',
        'x-ai-sdk-version': '7',
      },
      body: JSON.stringify({ session_id: session, data: { inputs: { messages: sent } } }),
    });
    assert.equal(response.status, 200);
    const [message] = (await response.json()).data.outputs.messages;
    const live = withoutStreamingStates([chat.messages[2 * n + 1]])[0];
    assert.equal(canonical(message.parts), canonical(live.parts));
    sent.push(message);
  }
  assert.equal(canonical(await stored(session, '7')), canonical(sent));
});

test('a history read naming no AI SDK version is refused with a 400 naming the header', async () => {
  const response = await fetch(`${SERVER_URL}/tasks/nobody/messages?format=vercel`, { headers: { 'x-ai-sdk-version': '4' } });
  assert.equal(response.status, 400);
  const body = await response.json();
  assert.deepEqual(body.data[0].loc, ['header', 'x-ai-sdk-version']);
});
