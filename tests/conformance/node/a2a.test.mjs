// The real A2A JS client (@a2a-js/sdk 1.3.0: ClientFactory, its JSON-RPC transport and protobuf
// JSON decoding) against a live turnwire server at SERVER_URL: card resolution, a streamed task
// (the task first, artifact chunks, the final status), get, and an approval round trip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientFactory } from '@a2a-js/sdk/client';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_a2a_node.py');

const ROLE_USER = 1;
const COMPLETED = 3;
const INPUT_REQUIRED = 6;

function message(parts, extra = {}) {
  return { messageId: crypto.randomUUID(), role: ROLE_USER, parts, contextId: '', taskId: '', metadata: {}, extensions: [], referenceTaskIds: [], ...extra };
}

function text(value) {
  return { content: { $case: 'text', value }, metadata: {}, filename: '', mediaType: '' };
}

async function collect(stream) {
  const out = [];
  for await (const event of stream) out.push(event.payload);
  return out;
}

test('the card resolves and a streamed task arrives as task, chunks and a final status', async () => {
  const client = await new ClientFactory().createFromUrl(SERVER_URL);
  const events = await collect(client.sendMessageStream({ message: message([text('count to 3')]) }));
  assert.equal(events[0].$case, 'task');
  const chunks = events.filter((e) => e.$case === 'artifactUpdate').map((e) => e.value.artifact.parts[0].content.value);
  assert.deepEqual(chunks, ['1', '2', '3']);
  const last = events.at(-1);
  assert.equal(last.$case, 'statusUpdate');
  assert.equal(last.value.status.state, COMPLETED);
  const task = await client.getTask({ id: events[0].value.id, historyLength: 1 });
  assert.equal(task.status.state, COMPLETED);
  assert.equal(task.artifacts.map((a) => a.parts[0].content.value).join(''), '123');
});

test('word by word text appends to one artifact, the last chunk marked', async () => {
  const client = await new ClientFactory().createFromUrl(SERVER_URL);
  const events = await collect(client.sendMessageStream({ message: message([text('hello there')]) }));
  const chunks = events.filter((e) => e.$case === 'artifactUpdate').map((e) => e.value);
  assert.equal(new Set(chunks.map((c) => c.artifact.artifactId)).size, 1);
  assert.deepEqual(chunks.map((c) => c.append), [false, ...chunks.slice(1).map(() => true)]);
  assert.equal(chunks.at(-1).lastChunk, true);
  assert.equal(chunks.map((c) => c.artifact.parts[0].content.value).join(''), 'You said: hello there');
});

test('an approval pauses the stream input-required and the answer on the task runs the tool', async () => {
  const client = await new ClientFactory().createFromUrl(SERVER_URL);
  const events = await collect(client.sendMessageStream({ message: message([text('delete js.txt')]) }));
  const last = events.at(-1).value;
  assert.equal(last.status.state, INPUT_REQUIRED);
  const request = last.status.message.parts[0].content.value;
  assert.equal(request.kind, 'user_approval');
  assert.equal(request.toolName, 'delete_file');
  const answer = { content: { $case: 'data', value: { approved: true, interactionToken: request.interactionToken } }, metadata: {}, filename: '', mediaType: '' };
  const done = await collect(client.sendMessageStream({ message: message([answer], { taskId: last.taskId, contextId: last.contextId }) }));
  assert.equal(done.at(-1).value.status.state, COMPLETED);
  const said = done.filter((e) => e.$case === 'artifactUpdate').map((e) => e.value.artifact.parts[0].content.value).join('');
  assert.equal(said, 'Deleted js.txt.');
});
