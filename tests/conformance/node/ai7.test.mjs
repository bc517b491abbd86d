// AI SDK 7 against a live turnwire server at SERVER_URL (the demo agent), on the `7` lane
// (x-ai-sdk-version: 7): the real ai 7.0.173 AbstractChat keeps the approval request's `signature`
// (turnwire's signed token) and returns it with its decision, which the server reads as the token;
// and a history holding every ai 7 part type and tool state (each message accepted by ai 7's own
// validateUIMessages) is taken by /chat and reads back as UIMessages ai 7 accepts; one that decides
// a call with a token the server never issued is refused with a 4xx naming it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  validateUIMessages,
} from 'ai';
import { TestChat, settled } from './chat_harness.mjs';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_ai7_node.py');
const V7 = { 'x-ai-sdk-version': '7' };

const gate = (message) => message.parts.find((p) => p.type === 'tool-delete_file');

test('the approval signature travels to the client and back as the token', async () => {
  const sent = [];
  const chat = new TestChat({
    id: `ai7-sig-${Date.now()}`,
    transport: new DefaultChatTransport({
      api: SERVER_URL + '/chat',
      headers: V7,
      // The resend keeps the signature but names another approval id: the signature is the token.
      fetch: async (url, options) => {
        const body = JSON.parse(options.body);
        for (const m of body.messages) {
          for (const p of m.parts) if (p.approval?.signature) p.approval.id = 'not-the-token';
        }
        sent.push(body);
        return fetch(url, { ...options, body: JSON.stringify(body) });
      },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  await chat.sendMessage({ text: 'delete notes.txt' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const asked = gate(chat.messages[1]);
  assert.equal(asked.state, 'approval-requested');
  assert.match(asked.approval.signature, /^ap_[A-Za-z0-9_-]{43}$/);
  assert.equal(asked.approval.signature, asked.approval.id);

  await chat.addToolApprovalResponse({ id: asked.approval.id, approved: true });
  assert.equal(await settled(chat, () => sent.length === 2 && gate(chat.messages[1]).state === 'output-available'),
    'ready', String(chat.error));
  assert.equal(gate(sent[1].messages[1]).approval.id, 'not-the-token');
  assert.deepEqual(gate(chat.messages[1]).output, { path: 'notes.txt', deleted: true });
});

const TOOL_STATES = [
  { state: 'input-streaming', input: { path: 'a' } },
  { state: 'input-available', input: { path: 'a' } },
  { state: 'approval-requested', input: { path: 'a' }, approval: { id: 'ap-x', signature: 'sig-x' } },
  { state: 'output-available', input: { path: 'a' }, output: { ok: true }, preliminary: false, title: 'Delete' },
  { state: 'output-error', input: { path: 'a' }, errorText: 'failed' },
];
// The two states that carry a decision: the server runs (or refuses) a call on them, so their
// token must be one it issued (the last test).
const DECISIONS = [
  { state: 'approval-responded', input: { path: 'a' }, approval: { id: 'ap-z', approved: true, signature: 'forged' } },
  {
    state: 'output-denied',
    input: { path: 'a' },
    approval: { id: 'ap-y', approved: false, reason: 'no', isAutomatic: true, signature: 'forged' },
  },
];

function everyPart() {
  const tools = TOOL_STATES.map((fields, n) => ({ type: 'tool-delete_file', toolCallId: `c${n}`, ...fields }));
  return [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'tell me' }, { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,aGk=' }] },
    {
      id: 'a1',
      role: 'assistant',
      metadata: { sessionId: 'elsewhere' },
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: 'thinking', providerMetadata: { acme: { effort: 1 } } },
        { type: 'reasoning-file', mediaType: 'image/png', url: 'https://example.com/r.png' },
        { type: 'source-url', sourceId: 's1', url: 'https://example.com', title: 'Example' },
        { type: 'source-document', sourceId: 's2', mediaType: 'application/pdf', title: 'Doc', filename: 'd.pdf' },
        { type: 'custom', kind: 'acme.note', providerMetadata: { turnwire: { data: 1 } } },
        { type: 'data-weather', id: 'w1', data: { c: 21 } },
        ...tools,
        { type: 'dynamic-tool', toolName: 'Look up', toolCallId: 'd1', state: 'output-available', input: {}, output: 1 },
        { type: 'file', mediaType: 'image/png', url: 'https://example.com/f.png' },
        { type: 'text', text: 'Here.', state: 'done' },
      ],
    },
  ];
}

test('a history with every ai 7 part and tool state is taken and reads back as ai 7 accepts', async () => {
  const history = everyPart();
  await validateUIMessages({ messages: history });  // these are ai 7's own shapes
  const id = `ai7-parts-${Date.now()}`;
  const messages = [...history, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'hello' }] }];
  const response = await fetch(SERVER_URL + '/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V7 },
    body: JSON.stringify({ id, messages, trigger: 'submit-message' }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const body = await response.text();
  assert.ok(body.includes('"type":"finish"') && body.endsWith('data: [DONE]\n\n'), body);

  const read = await fetch(`${SERVER_URL}/tasks/${id}/messages?format=vercel`);
  assert.equal(read.status, 200);
  const stored = (await read.json()).messages;
  await validateUIMessages({ messages: stored });
  const answer = stored.find((m) => m.id === 'a1');
  const types = answer.parts.map((p) => p.type);
  // What the store holds of it: text, reasoning, the sources, the data part, every tool part, files.
  for (const type of ['reasoning', 'source-url', 'source-document', 'data-weather', 'tool-delete_file', 'dynamic-tool', 'file', 'text']) {
    assert.ok(types.includes(type), `${type} missing from ${JSON.stringify(types)}`);
  }
  const calls = answer.parts.filter((p) => p.type === 'tool-delete_file').map((p) => p.toolCallId);
  assert.deepEqual(calls, TOOL_STATES.map((_, n) => `c${n}`));
});

for (const decision of DECISIONS) test(`a decision (${decision.state}) naming no token the server issued is a 4xx saying so`, async () => {
  const history = everyPart();
  history[1].parts.push({ type: 'tool-delete_file', toolCallId: 'c9', ...decision });
  await validateUIMessages({ messages: history });
  const response = await fetch(SERVER_URL + '/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V7 },
    body: JSON.stringify({ id: `ai7-forged-${Date.now()}`, messages: history, trigger: 'submit-message', messageId: 'a1' }),
  });
  assert.ok(response.status >= 400 && response.status < 500, `status ${response.status}`);
  const error = await response.json();
  assert.equal(error.detail[0].type, 'approval_token_invalid');
});
