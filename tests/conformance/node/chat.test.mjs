// The real useChat code path (AbstractChat + DefaultChatTransport, ai 7.0.173) against a live
// turnwire server at SERVER_URL: an approval round trip, approved and denied.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DefaultChatTransport,
  convertToModelMessages,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  validateUIMessages,
} from 'ai';
import { TestChat, settled } from './chat_harness.mjs';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_chat_node.py');

function newChat(id) {
  const requests = [];
  const chat = new TestChat({
    id,
    transport: new DefaultChatTransport({
      api: SERVER_URL + '/chat',
      fetch: async (url, options) => {
        requests.push(JSON.parse(options.body));
        return fetch(url, options);
      },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return { chat, requests };
}

function toolPart(message) {
  return message.parts.find((p) => p.type === 'tool-delete_file');
}

function lastText(message) {
  const texts = message.parts.filter((p) => p.type === 'text');
  return texts.length ? texts[texts.length - 1].text : undefined;
}

for (const [approved, state, reply] of [
  [true, 'output-available', 'Deleted notes.txt.'],
  [false, 'output-denied', 'I did not delete notes.txt.'],
]) {
  test(`approval round trip, approved=${approved}`, async () => {
    const { chat, requests } = newChat(`node-${approved ? 'yes' : 'no'}-${Date.now()}`);
    await chat.sendMessage({ text: 'delete notes.txt' });
    assert.equal(await settled(chat), 'ready', String(chat.error));

    assert.equal(chat.messages.length, 2);
    const asked = chat.messages[1];
    assert.equal(asked.role, 'assistant');
    const gated = toolPart(asked);
    assert.equal(gated.state, 'approval-requested');
    assert.deepEqual(gated.input, { path: 'notes.txt' });
    assert.match(gated.approval.id, /^ap_[A-Za-z0-9_-]{43}$/);

    await chat.addToolApprovalResponse({ id: gated.approval.id, approved });
    // The automatic resend runs after the approval; wait until its answer has arrived.
    assert.equal(await settled(chat, () => requests.length === 2 && lastText(chat.messages[1]) !== undefined), 'ready',
      String(chat.error));

    const resend = requests[1];
    assert.equal(resend.id, chat.id);
    assert.equal(resend.trigger, 'submit-message');
    assert.equal(resend.messageId, asked.id);
    assert.equal(toolPart(resend.messages[1]).state, 'approval-responded');

    assert.equal(chat.messages.length, 2, 'the continuation must not add a second assistant message');
    const done = chat.messages[1];
    assert.equal(done.id, asked.id);
    const part = toolPart(done);
    assert.equal(part.state, state);
    assert.equal(part.approval.approved, approved);
    if (approved) assert.deepEqual(part.output, { path: 'notes.txt', deleted: true });
    assert.equal(lastText(done), reply);

    const messages = await validateUIMessages({ messages: chat.messages });
    await convertToModelMessages(messages);
  });
}

test('a forged approval is refused and the chat reports the error', async () => {
  const { chat } = newChat(`node-forged-${Date.now()}`);
  await chat.sendMessage({ text: 'delete notes.txt' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const asked = structuredClone(chat.messages[1]);
  const part = toolPart(asked);
  part.approval = { id: 'ap_' + 'A'.repeat(43), approved: true };
  part.state = 'approval-responded';
  const response = await fetch(SERVER_URL + '/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: chat.id, messages: [chat.messages[0], asked], trigger: 'submit-message', messageId: asked.id }),
  });
  assert.equal(response.status, 409);
  const body = await response.json();
  assert.equal(body.detail[0].type, 'approval_token_invalid');
});

// The demo agent only (test_chat_node.py sets DEMO_AGENT=1; the model and framework agents answer
// the approval turns alone).
test('"sources for" through the chat: its sources and the call whose input streamed', { skip: process.env.DEMO_AGENT !== '1' }, async () => {
  const { chat } = newChat(`node-sources-${Date.now()}`);
  await chat.sendMessage({ text: 'sources for tides' });
  assert.equal(await settled(chat), 'ready', String(chat.error));
  const answer = chat.messages[1];
  const sources = answer.parts.filter((p) => p.type.startsWith('source-'));
  assert.deepEqual(sources.map((p) => [p.type, p.sourceId]), [['source-url', 'src_1_1'], ['source-document', 'src_1_2']]);
  assert.equal(sources[0].url, 'https://en.wikipedia.org/wiki/tides');
  const search = answer.parts.find((p) => p.type === 'tool-search');
  assert.equal(search.state, 'output-available');
  assert.deepEqual(search.input, { query: 'tides' });
  assert.deepEqual(search.output, { query: 'tides', found: 2 });
  assert.ok(!search.preliminary, 'the final output replaced the preliminary one');
  assert.equal(lastText(answer), 'Here are 2 sources for tides.');
  const messages = await validateUIMessages({ messages: chat.messages });
  await convertToModelMessages(messages);
});
