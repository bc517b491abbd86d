// Shared state on the real AG-UI client (@ag-ui/client 1.0.0, through the ReconnectingHttpAgent
// turnwire serves): the client's state reaches the agent in RunAgentInput.state, the agent's
// STATE_SNAPSHOT / STATE_DELTA become the client's state, and a page that reloads gets the
// thread's last state back from connectAgent() with its messages.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agui_state_node.py');

async function servedModule() {
  const response = await fetch(`${SERVER_URL}/agui/client.js`);
  assert.equal(response.status, 200);
  const file = join(dirname(fileURLToPath(import.meta.url)), `.served-agui-state-${process.pid}.mjs`);
  await writeFile(file, await response.text());
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    await rm(file, { force: true });
  }
}
const { ReconnectingHttpAgent } = await servedModule();

function say(agent, text) {
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
}

test("the client's state reaches the agent, and the agent's comes back", async () => {
  const threadId = `state-${crypto.randomUUID()}`;
  const agent = new ReconnectingHttpAgent({
    url: `${SERVER_URL}/agents/counter/agui`, threadId, initialState: { count: 41, note: null },
  });
  say(agent, 'add one');
  await agent.runAgent();
  // The agent read {count: 41} from RunAgentInput.state and patched it (STATE_DELTA).
  assert.deepEqual(agent.state, { count: 42, note: null, seen: ['add one'] });
  agent.setState({ ...agent.state, count: 100 }); // the client changes it between runs
  say(agent, 'and one more');
  await agent.runAgent();
  assert.deepEqual(agent.state, { count: 101, note: null, seen: ['add one', 'and one more'] });

  const reloaded = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agents/counter/agui`, threadId });
  await reloaded.connectAgent();
  assert.deepEqual(reloaded.state, agent.state);
  assert.deepEqual(reloaded.messages, agent.messages);
});

test('"sources for": a reloaded page gets the state the run ended with', async () => {
  const threadId = `sources-${crypto.randomUUID()}`;
  const agent = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agui`, threadId });
  say(agent, 'sources for tides');
  await agent.runAgent();
  assert.deepEqual(agent.state, { topic: 'tides', sources: 2 });
  const reloaded = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agui`, threadId });
  const seen = [];
  await reloaded.connectAgent({}, { onStateSnapshotEvent: ({ event }) => { seen.push(event.snapshot); } });
  assert.deepEqual(seen, [{ topic: 'tides', sources: 2 }]);
  assert.deepEqual(reloaded.state, agent.state);
  assert.deepEqual(reloaded.messages, agent.messages);
});

test('a thread whose agent never sent a state gets none back', async () => {
  const threadId = `plain-${crypto.randomUUID()}`;
  const agent = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agui`, threadId });
  say(agent, 'hello');
  await agent.runAgent();
  const reloaded = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agui`, threadId });
  const seen = [];
  await reloaded.connectAgent({}, { onStateSnapshotEvent: ({ event }) => { seen.push(event.snapshot); } });
  assert.deepEqual(seen, []);
  assert.deepEqual(reloaded.messages, agent.messages);
});
