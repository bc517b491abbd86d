// The real AG-UI client (@ag-ui/client HttpAgent, its event verifier on every event) against a
// live turnwire server at SERVER_URL whose default agent is a framework adapter on recorded model
// streams: a tool call and its result, then an approval interrupt resumed approved and denied.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agui_node.py');

function newAgent(text) {
  const agent = new HttpAgent({ url: SERVER_URL + '/agui', threadId: `fw-${crypto.randomUUID()}` });
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  return agent;
}

function recorder() {
  const seen = { text: '', toolCalls: [], results: [], finished: [], errors: [] };
  const subscriber = {
    onTextMessageContentEvent: ({ event }) => { seen.text += event.delta; },
    onToolCallEndEvent: ({ toolCallName, toolCallArgs }) => { seen.toolCalls.push({ toolCallName, toolCallArgs }); },
    onToolCallResultEvent: ({ event }) => { seen.results.push(event); },
    onRunFinishedEvent: (params) => { seen.finished.push(params); },
    onRunErrorEvent: ({ event }) => { seen.errors.push(event); },
  };
  return { seen, subscriber };
}

test('a tool the agent runs reaches the subscribers with its result', async () => {
  const agent = newAgent('weather in Paris');
  const { seen, subscriber } = recorder();
  await agent.runAgent({}, subscriber);
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.toolCalls, [{ toolCallName: 'get_weather', toolCallArgs: { city: 'Paris' } }]);
  assert.equal(seen.results.length, 1);
  assert.deepEqual(JSON.parse(seen.results[0].content), { city: 'Paris', condition: 'Sunny', temperature_c: 21 });
  assert.match(seen.text, /Paris/);
  assert.equal(seen.finished[0].outcome, 'success');
});

for (const [approved, reply] of [[true, 'Deleted notes.txt.'], [false, 'I did not delete notes.txt.']]) {
  test(`an approval interrupt resumed with approved=${approved}`, async () => {
    const agent = newAgent('delete notes.txt');
    const first = recorder();
    await agent.runAgent({}, first.subscriber);
    assert.equal(first.seen.finished[0].outcome, 'interrupt');
    const [interrupt] = agent.pendingInterrupts;
    assert.equal(interrupt.reason, 'tool_call');
    assert.deepEqual(first.seen.toolCalls, [{ toolCallName: 'delete_file', toolCallArgs: { path: 'notes.txt' } }]);

    const second = recorder();
    await agent.runAgent(
      { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved } }] },
      second.subscriber,
    );
    assert.deepEqual(second.seen.errors, []);
    assert.equal(second.seen.finished[0].outcome, 'success');
    assert.equal(second.seen.text, reply);
    assert.deepEqual(agent.pendingInterrupts, []);
  });
}
