// The real AG-UI client (@ag-ui/client 1.0.0 HttpAgent: its event verifier and message builder)
// against a live turnwire server at SERVER_URL: text and tool calls reach the subscribers, an
// approval interrupt resumed with a decision runs the tool, a user-input interrupt is answered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agui_node.py');

function newAgent() {
  return new HttpAgent({ url: SERVER_URL + '/agui', threadId: `agui-${crypto.randomUUID()}` });
}

function say(agent, text) {
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
}

function recorder() {
  const seen = { text: '', toolCalls: [], results: [], finished: [], errors: [], types: [] };
  const subscriber = {
    onEvent: ({ event }) => { seen.types.push(event.type); },
    onTextMessageContentEvent: ({ event }) => { seen.text += event.delta; },
    onToolCallEndEvent: ({ toolCallName, toolCallArgs }) => { seen.toolCalls.push({ toolCallName, toolCallArgs }); },
    onToolCallResultEvent: ({ event }) => { seen.results.push(event); },
    onRunFinishedEvent: (params) => { seen.finished.push(params); },
    onRunErrorEvent: ({ event }) => { seen.errors.push(event); },
  };
  return { seen, subscriber };
}

test('runAgent: subscribers see the text, the tool call and its result', async () => {
  const agent = newAgent();
  say(agent, 'weather in Paris');
  const { seen, subscriber } = recorder();
  const { newMessages } = await agent.runAgent({}, subscriber);
  assert.equal(seen.text, 'It is sunny and 21 °C in Paris.');
  assert.deepEqual(seen.toolCalls, [{ toolCallName: 'get_weather', toolCallArgs: { city: 'Paris' } }]);
  assert.equal(seen.results.length, 1);
  // The one output rule (ToolResult.result_output): the tool's structured data when it has one.
  assert.deepEqual(JSON.parse(seen.results[0].content), { city: 'Paris', condition: 'Sunny', temperature_c: 21 });
  assert.equal(seen.finished.length, 1);
  assert.equal(seen.finished[0].outcome, 'success');
  assert.ok(seen.types.includes('REASONING_MESSAGE_CONTENT'));
  assert.ok(seen.types.includes('STEP_STARTED'));
  const roles = newMessages.map((m) => m.role);
  assert.ok(roles.includes('tool') && roles.includes('assistant'), JSON.stringify(newMessages));
  const withCall = agent.messages.find((m) => m.role === 'assistant' && m.toolCalls?.length);
  assert.equal(withCall.toolCalls[0].function.name, 'get_weather');
});

test('an approval interrupt resumed with a decision runs the tool', async () => {
  const agent = newAgent();
  say(agent, 'delete notes.txt');
  const first = recorder();
  await agent.runAgent({}, first.subscriber);
  assert.equal(first.seen.finished[0].outcome, 'interrupt');
  const [interrupt] = agent.pendingInterrupts;
  assert.equal(interrupt.reason, 'tool_call');
  assert.deepEqual(first.seen.toolCalls, [{ toolCallName: 'delete_file', toolCallArgs: { path: 'notes.txt' } }]);
  assert.equal(interrupt.toolCallId, agent.messages.find((m) => m.toolCalls?.length).toolCalls[0].id);

  const second = recorder();
  await agent.runAgent(
    { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] },
    second.subscriber,
  );
  assert.deepEqual(second.seen.errors, []);
  assert.equal(second.seen.finished[0].outcome, 'success');
  assert.equal(second.seen.text, 'Deleted notes.txt.');
  assert.equal(second.seen.results[0].toolCallId, interrupt.toolCallId);
  assert.deepEqual(JSON.parse(second.seen.results[0].content), { path: 'notes.txt', deleted: true });
  assert.deepEqual(agent.pendingInterrupts, []);
});

test('a denied approval does not run the tool', async () => {
  const agent = newAgent();
  say(agent, 'delete secrets.txt');
  await agent.runAgent({}, recorder().subscriber);
  const [interrupt] = agent.pendingInterrupts;
  const second = recorder();
  await agent.runAgent(
    { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: false } }] },
    second.subscriber,
  );
  assert.equal(second.seen.text, 'I did not delete secrets.txt.');
});

test('a user-input interrupt is answered through resume', async () => {
  const agent = newAgent();
  say(agent, 'ask me');
  const first = recorder();
  await agent.runAgent({}, first.subscriber);
  assert.equal(first.seen.text, 'What should I echo?');
  const [interrupt] = agent.pendingInterrupts;
  assert.equal(interrupt.reason, 'input_required');
  assert.equal(interrupt.message, 'What should I echo?');
  const second = recorder();
  await agent.runAgent(
    { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: 'purple' } }] },
    second.subscriber,
  );
  assert.equal(second.seen.text, 'You answered: purple');
});

async function history(agent) {
  const r = await fetch(`${SERVER_URL}/tasks/${agent.threadId}/messages?format=agui`);
  assert.equal(r.status, 200);
  return (await r.json()).messages;
}

test('two runs in one thread read back from ?format=agui exactly as the client holds them', async () => {
  const agent = newAgent();
  say(agent, 'weather in Oslo');
  await agent.runAgent({}, recorder().subscriber);
  say(agent, 'hello there');
  await agent.runAgent({}, recorder().subscriber);
  // Ids included: the client's own, the calls', and those the runs named their messages by.
  assert.deepEqual(await history(agent), agent.messages);
  const ids = agent.messages.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length);
  const withCall = agent.messages.find((m) => m.toolCalls?.length);
  assert.equal(agent.messages[agent.messages.indexOf(withCall) + 1].toolCallId, withCall.toolCalls[0].id);
});

test('after approval and question resumes a second client loads the thread and goes on', async () => {
  const agent = newAgent();
  say(agent, 'delete notes.txt');
  await agent.runAgent({}, recorder().subscriber);
  let [interrupt] = agent.pendingInterrupts;
  await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] });
  say(agent, 'ask me');
  await agent.runAgent({}, recorder().subscriber);
  [interrupt] = agent.pendingInterrupts;
  await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: 'blue' } }] });
  const stored = await history(agent);
  assert.deepEqual(stored, agent.messages);

  const other = new HttpAgent({ url: SERVER_URL + '/agui', threadId: agent.threadId, initialMessages: stored });
  say(other, 'weather in Paris');
  const { seen, subscriber } = recorder();
  await other.runAgent({}, subscriber);
  assert.equal(seen.text, 'It is sunny and 21 °C in Paris.');
  assert.deepEqual(await history(other), other.messages);
  assert.deepEqual(other.messages.slice(0, stored.length), stored);
});

test('"sources for" sends state, steps, a sub-agent, streamed arguments and custom events the client takes', async () => {
  const agent = newAgent();
  say(agent, 'sources for tides');
  const seen = { args: [], steps: [], subagents: [], custom: [], started: [] };
  const { newMessages } = await agent.runAgent({}, {
    onRunStartedEvent: ({ event }) => { seen.started.push(event); },
    onToolCallArgsEvent: ({ event }) => { seen.args.push(event.delta); },
    onStepStartedEvent: ({ event }) => { seen.steps.push(event.stepName); },
    onSubagentStartedEvent: ({ event }) => { seen.subagents.push(['start', event.name, event.subagentRunId]); },
    onSubagentFinishedEvent: ({ event }) => { seen.subagents.push(['finish', event.subagentRunId]); },
    onCustomEvent: ({ event }) => { seen.custom.push([event.name, event.value]); },
  });
  assert.equal(seen.started[0].protocolVersion, '1.0');
  // The arguments arrive in pieces that join to the call's JSON input.
  assert.ok(seen.args.length >= 2, JSON.stringify(seen.args));
  assert.deepEqual(JSON.parse(seen.args.join('')), { query: 'tides' });
  assert.ok(seen.steps.includes('search'), JSON.stringify(seen.steps));
  const runId = seen.subagents[0][2];
  assert.deepEqual(seen.subagents, [['start', 'researcher', runId], ['finish', runId]]);
  // STATE_SNAPSHOT then STATE_DELTA (a JSON Patch) applied by the client.
  assert.deepEqual(agent.state, { topic: 'tides', sources: 2 });
  const names = seen.custom.map(([name]) => name);
  assert.deepEqual(names, ['tool_progress', 'source_url', 'source_document', 'turnwire.demo_sources']);
  assert.deepEqual(seen.custom[1][1], { sourceId: 'src_1_1', url: 'https://en.wikipedia.org/wiki/tides', title: 'tides' });
  const withCall = agent.messages.find((m) => m.toolCalls?.length);
  assert.equal(withCall.toolCalls[0].function.arguments, '{"query":"tides"}');
  assert.ok(newMessages.some((m) => m.role === 'assistant' && m.content === 'Here are 2 sources for tides.'));
  // Everything the researcher said is its own (1.0 attribution): the call's message, the result, the reply.
  assert.deepEqual(newMessages.map((m) => [m.role, m.subagentRunId]), [
    ['assistant', runId], ['tool', runId], ['assistant', runId],
  ]);
  // The reload equals the live chat, attribution included: no other new event is a message the client keeps.
  assert.deepEqual(await history(agent), agent.messages);
  // The next run sends the attributed messages back: taken as they are, nothing rewound.
  say(agent, 'hello');
  await agent.runAgent();
  assert.deepEqual(await history(agent), agent.messages);
  assert.equal(agent.messages.filter((m) => m.subagentRunId === runId).length, 3);
});
