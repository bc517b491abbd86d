// The official `openai` npm package's Responses client against a live turnwire server at
// SERVER_URL: a batch response, the stream helper's accumulated final response equal to the
// stored one, the raw event stream's sequence numbers, previous_response_id and an approval.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_responses_node.py');

// A value without the `parsed` / `output_parsed` fields the stream helper adds to what it parses for the caller.
function plain(value) {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'parsed' || key === 'output_parsed' ? undefined : v)));
}

const client = new OpenAI({ baseURL: SERVER_URL + '/v1', apiKey: 'unused', maxRetries: 0 });

test('responses.create: text, the agent tool as an mcp_call, usage', async () => {
  const done = await client.responses.create({ model: 'demo', input: 'weather in Paris' });
  assert.equal(done.status, 'completed');
  assert.equal(done.output_text, 'It is sunny and 21 °C in Paris.');
  const call = done.output.find((item) => item.type === 'mcp_call');
  assert.equal(call.server_label, 'demo');
  assert.deepEqual(JSON.parse(call.output), { city: 'Paris', condition: 'Sunny', temperature_c: 21 });
  assert.ok(done.usage.total_tokens > 0);
});

test('responses.stream: the helper accumulates exactly the stored response', async () => {
  const deltas = [];
  const stream = client.responses.stream({ model: 'demo', input: 'count to 3' });
  stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
  const final = await stream.finalResponse();
  assert.deepEqual(deltas, ['1', '2', '3']);
  const stored = await client.responses.retrieve(final.id);
  assert.deepEqual(plain(stored), plain(final));
});

test('create({stream: true}): numbered semantic events, created first, completed last', async () => {
  const stream = await client.responses.create({ model: 'demo', input: 'hello', stream: true });
  const events = [];
  for await (const event of stream) events.push(event);
  assert.equal(events[0].type, 'response.created');
  assert.equal(events.at(-1).type, 'response.completed');
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  assert.ok(events.some((e) => e.type === 'response.reasoning_summary_text.delta'));
});

test('previous_response_id continues, and an approval answered runs the tool', async () => {
  const paused = await client.responses.create({ model: 'demo', input: 'delete node.txt' });
  const asked = paused.output.find((item) => item.type === 'mcp_approval_request');
  assert.equal(asked.name, 'delete_file');
  const done = await client.responses.create({
    model: 'demo',
    previous_response_id: paused.id,
    input: [{ type: 'mcp_approval_response', approval_request_id: asked.id, approve: true }],
  });
  assert.equal(done.output_text, 'Deleted node.txt.');
  await assert.rejects(
    client.responses.create({
      model: 'demo',
      previous_response_id: done.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: asked.id, approve: true }],
    }),
    (err) => err.status === 409,
  );
});

test('"sources for": streamed call arguments in pieces and the sources as output_text annotations', async () => {
  const pieces = [];
  const annotations = [];
  const stream = client.responses.stream({ model: 'demo', input: 'sources for tides' });
  stream.on('response.mcp_call_arguments.delta', (event) => pieces.push(event.delta));
  stream.on('response.output_text.annotation.added', (event) => annotations.push(event.annotation));
  const final = await stream.finalResponse();
  assert.ok(pieces.length >= 2, JSON.stringify(pieces));
  const call = final.output.find((item) => item.type === 'mcp_call');
  assert.equal(pieces.join(''), call.arguments);
  assert.deepEqual(JSON.parse(call.arguments), { query: 'tides' });
  assert.deepEqual(annotations.map((a) => a.type), ['url_citation', 'file_citation']);
  assert.equal(annotations[0].url, 'https://en.wikipedia.org/wiki/tides');
  const message = final.output.find((item) => item.type === 'message');
  assert.deepEqual(message.content[0].annotations, annotations);
  assert.equal(final.output_text, 'Here are 2 sources for tides.');
  const stored = await client.responses.retrieve(final.id);
  assert.deepEqual(plain(stored), plain(final));
});
