// A chat page that reloads shows the very conversation the user saw: the real ai 7.0.173 chat
// client (AbstractChat + DefaultChatTransport) against a live turnwire server with a store at
// SERVER_URL. After a weather turn, an approved `delete notes.txt` and a plain turn, the client's
// messages equal GET /tasks/<chat id>/messages?format=vercel, byte for byte (keys sorted) once the
// streaming states of text and reasoning parts are removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { TestChat, settled } from './chat_harness.mjs';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_reload_node.py');

function newChat(id, extra = {}) {
  return new TestChat({
    id,
    transport: new DefaultChatTransport({ api: SERVER_URL + '/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    ...extra,
  });
}

/** JSON with every object's keys sorted: the bytes of a value, whatever order its keys were set in. */
function canonical(value) {
  return JSON.stringify(value, (key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v);
}

/** The messages without streaming states: `state` of text and reasoning parts. */
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

async function stored(chatId) {
  const response = await fetch(`${SERVER_URL}/tasks/${chatId}/messages?format=vercel`);
  assert.equal(response.status, 200);
  return (await response.json()).messages;
}

test('a reloaded chat equals what the client assembled', async () => {
  const chat = newChat(`reload-${Date.now()}`);
  await chat.sendMessage({ text: 'weather in Oslo' });
  assert.equal(await settled(chat), 'ready', String(chat.error));

  await chat.sendMessage({ text: 'delete notes.txt' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const gated = chat.messages[3].parts.find((p) => p.type === 'tool-delete_file');
  assert.equal(gated.state, 'approval-requested');
  await chat.addToolApprovalResponse({ id: gated.approval.id, approved: true });
  assert.equal(
    await settled(chat, () => chat.messages[3].parts.some((p) => p.type === 'tool-delete_file' && p.state === 'output-available')
      && chat.messages[3].parts.at(-1).type === 'text'),
    'ready', String(chat.error));

  await chat.sendMessage({ text: 'hello' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  assert.equal(chat.messages.length, 6);

  const client = canonical(withoutStreamingStates(chat.messages));
  const history = canonical(withoutStreamingStates(await stored(chat.id)));
  assert.equal(history, client);
});

/** A message without what names its conversation and turn: its id, `sessionId` and `traceId`. */
function unnamed(message) {
  const { sessionId, traceId, ...metadata } = message.metadata ?? {};
  return { role: message.role, parts: message.parts, metadata };
}

test('data parts, renders, files and sources read back as the client holds them; transient data stays out', async () => {
  const notices = [];
  const chat = new TestChat({
    id: `parts-${Date.now()}`,
    transport: new DefaultChatTransport({ api: SERVER_URL + '/agents/parts/chat' }),
    onData: (part) => notices.push(part),
  });
  await chat.sendMessage({ text: 'first' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  await chat.sendMessage({ text: 'second' });
  assert.equal(await settled(chat), 'ready', String(chat.error));

  const answer = chat.messages[3];
  assert.deepEqual(answer.parts.map((p) => p.type), [
    'step-start', 'reasoning', 'source-url', 'tool-lookup', 'data-render', 'data-render', 'data-weather',
    'data-data', 'file', 'step-start', 'text', 'source-document',
  ]);
  // The transient notice reached onData and is no part of any message.
  assert.ok(notices.some((p) => p.type === 'data-progress' && p.transient === true));
  assert.ok(chat.messages.every((m) => m.parts.every((p) => p.type !== 'data-progress')));

  const client = canonical(withoutStreamingStates(chat.messages));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id))), client);

  // The same turns answered as JSON (/invoke, Vercel format): each answer is the streamed message.
  const session = `parts-batch-${Date.now()}`;
  const sent = [];
  for (const [n, text] of ['first', 'second'].entries()) {
    sent.push({ id: `u${n}`, role: 'user', parts: [{ type: 'text', text }] });
    const response = await fetch(`${SERVER_URL}/agents/parts/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-ag-messages-format': 'vercel' },
      body: JSON.stringify({ session_id: session, data: { inputs: { messages: sent } } }),
    });
    assert.equal(response.status, 200);
    const [message] = (await response.json()).data.outputs.messages;
    assert.equal(canonical(unnamed(message)), canonical(unnamed(withoutStreamingStates([chat.messages[2 * n + 1]])[0])));
    sent.push(message);
  }
  assert.equal(canonical(await stored(session)), canonical(sent));
});

test('an input request reads back as the data part with its id the client keeps', async () => {
  const chat = newChat(`ask-${Date.now()}`);
  await chat.sendMessage({ text: 'ask me' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  assert.deepEqual(chat.messages[1].parts.at(-1),
    { type: 'data-input-request', id: 'input_1', data: { prompt: 'What should I echo?' } });
  await chat.sendMessage({ text: 'bananas' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const client = canonical(withoutStreamingStates(chat.messages));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id))), client);
});

test('a failed turn reads back as the client kept it: its error part, and no finish metadata', async () => {
  const chat = newChat(`fail-${Date.now()}`);
  await chat.sendMessage({ text: 'fail' });
  assert.equal(await settled(chat), 'error');
  assert.deepEqual(chat.messages[1].parts.at(-1), {
    type: 'data-agent-error',
    data: { code: 'agent_run_failed', errorText: 'Agent run failed: demo failure requested' },
  });
  assert.equal(chat.messages[1].metadata.traceId, undefined);  // the finish was never read
  await chat.sendMessage({ text: 'hello' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const client = canonical(withoutStreamingStates(chat.messages));
  assert.equal(canonical(withoutStreamingStates(await stored(chat.id))), client);
});
