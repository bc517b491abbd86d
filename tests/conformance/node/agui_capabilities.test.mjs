// AG-UI capability discovery on the real client: ReconnectingHttpAgent (served at /agui/client.js,
// an @ag-ui/client HttpAgent) reads each agent's AgentCapabilities with getCapabilities(), and
// @ag-ui/core's AgentCapabilitiesSchema accepts the document as it is (no key it does not know).
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AgentCapabilitiesSchema } from '@ag-ui/core/schemas';

const SERVER_URL = process.env.SERVER_URL;
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agui_capabilities_node.py');

async function servedModule() {
  const response = await fetch(`${SERVER_URL}/agui/client.js`);
  assert.equal(response.status, 200);
  const file = join(dirname(fileURLToPath(import.meta.url)), `.served-agui-caps-${process.pid}.mjs`);
  await writeFile(file, await response.text());
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    await rm(file, { force: true });
  }
}
const { ReconnectingHttpAgent } = await servedModule();

function valid(doc) {
  // zod drops keys it does not know: the parsed document equals the served one only if none.
  assert.deepEqual(AgentCapabilitiesSchema.parse(doc), doc);
  return doc;
}

test('the default agent (the demo) declares the door and what it says of itself', async () => {
  const caps = valid(await new ReconnectingHttpAgent({ url: `${SERVER_URL}/agui` }).getCapabilities());
  assert.equal(caps.identity.name, 'demo');
  assert.deepEqual(caps.transport, {
    streaming: true, websocket: false, httpBinary: false, pushNotifications: false, resumable: true,
  });
  assert.deepEqual(caps.humanInTheLoop, { supported: true, interrupts: true, approveWithEdits: false, approvals: true });
  assert.deepEqual(caps.state, { snapshots: true, deltas: true });
  assert.deepEqual(caps.multiAgent.subagents, [{ name: 'researcher' }]);
  assert.equal(caps.tools, undefined); // the demo has no tool definitions: unknown, so absent
});

test("an agent's tools are listed with their JSON Schemas; one that needs approval says so", async () => {
  const agent = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agents/tooled/agui/` });
  const caps = valid(await agent.getCapabilities());
  assert.equal(caps.identity.name, 'tooled');
  assert.equal(caps.identity.description, 'An agent with one tool.');
  assert.deepEqual(caps.tools, {
    supported: true,
    items: [{
      name: 'delete_file',
      description: 'Delete a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    }],
  });
  assert.equal(caps.humanInTheLoop.approvals, true);
  assert.equal(caps.state, undefined);
});

test('an unknown agent is a 404, not a document', async () => {
  const agent = new ReconnectingHttpAgent({ url: `${SERVER_URL}/agents/nobody/agui` });
  await assert.rejects(agent.getCapabilities(), /HTTP 404/);
});
