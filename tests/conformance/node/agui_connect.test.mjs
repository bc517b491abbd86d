// Reconnect on the real AG-UI client (@ag-ui/client 1.0.0: connectAgent(), its event verifier and
// message builder) with the ReconnectingHttpAgent turnwire serves at /agui/client.js: a page that
// reloads mid-run (a new agent for the same thread, at RESUME_URL — the same server, or another
// worker on the same PostgreSQL + Redis) and whose connection then breaks ends with the same
// messages as a client that never left.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SERVER_URL = process.env.SERVER_URL;
const RESUME_URL = process.env.RESUME_URL ?? SERVER_URL;
const AGENT = process.env.AGENT ?? 'long';
const WORDS = Number(process.env.WORDS ?? 150);
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agui_connect_node.py');

const FULL = Array.from({ length: WORDS }, (_, i) => `w${i} `).join('');

// The module exactly as the server serves it, imported from here so '@ag-ui/client' resolves
// to this folder's node_modules (what an app's bundler does with its own copy).
async function servedModule() {
  const response = await fetch(`${SERVER_URL}/agui/client.js`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /^text\/javascript/);
  const file = join(dirname(fileURLToPath(import.meta.url)), `.served-agui-client-${process.pid}.mjs`);
  await writeFile(file, await response.text());
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    await rm(file, { force: true });
  }
}
const { ReconnectingHttpAgent } = await servedModule();

function newAgent(base, threadId) {
  return new ReconnectingHttpAgent({ url: `${base}/agents/${AGENT}/agui`, threadId });
}

async function until(predicate, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function reply(agent) {
  return agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content ?? '').join('');
}

// Ids differ between two threads (a run's messages are named from its turn): the shape must not.
function shape(messages) {
  return messages.map(({ id, ...rest }) => rest);
}

test('a reload mid-run, then a broken connection: the same messages as a client that never left', async () => {
  // The uninterrupted client, on a thread of its own, at the same time.
  const steady = newAgent(SERVER_URL, `steady-${crypto.randomUUID()}`);
  steady.addMessage({ id: crypto.randomUUID(), role: 'user', content: String(WORDS) });
  const errors = [];
  const steadyRun = steady.runAgent({}, { onRunErrorEvent: ({ event }) => errors.push(event) });

  // The page that reloads: its run is started, then the page goes away mid-stream.
  const threadId = `reload-${crypto.randomUUID()}`;
  const page = newAgent(SERVER_URL, threadId);
  const userMessage = { id: crypto.randomUUID(), role: 'user', content: String(WORDS) };
  page.addMessage(userMessage);
  const running = page.runAgent();
  await until(() => reply(page).length > 40);
  page.abortRun();
  await running;
  assert.ok(reply(page).length < FULL.length, 'left mid-run');

  // The reloaded page: nothing but its thread id. Its connection breaks mid-run too.
  const reloaded = newAgent(RESUME_URL, threadId);
  const seen = [];
  const first = reloaded.connectAgent({}, { onEvent: ({ event }) => seen.push(event.type) });
  await until(() => reply(reloaded).length > reply(page).length + 20);
  reloaded.abortRun();
  await first;
  assert.equal(seen[0], 'RUN_STARTED');
  assert.equal(seen[1], 'MESSAGES_SNAPSHOT');
  assert.deepEqual(reloaded.messages[0], userMessage);
  const cut = reply(reloaded);
  assert.ok(cut.length < FULL.length, 'cut mid-run');
  assert.match(reloaded.lastEventId, /^[A-Za-z0-9._-]+:\d+$/);

  // connectAgent() again: Last-Event-ID, only the events after it (no snapshot), to the end.
  const again = [];
  const result = await reloaded.connectAgent({}, { onEvent: ({ event }) => again.push(event.type) });
  assert.ok(!again.includes('MESSAGES_SNAPSHOT'), again.join(' '));
  assert.equal(again.at(-1), 'RUN_FINISHED');
  assert.equal(reply(reloaded), FULL);
  await steadyRun;
  assert.deepEqual(errors, []);
  assert.equal(reply(steady), FULL);
  assert.deepEqual(shape(reloaded.messages), shape(steady.messages));
  assert.deepEqual(result.newMessages, []);

  // A later reload (nothing runs): the stored thread, ids included, is what the client holds.
  const later = newAgent(RESUME_URL, threadId);
  await later.connectAgent();
  assert.deepEqual(later.messages, reloaded.messages);
});
