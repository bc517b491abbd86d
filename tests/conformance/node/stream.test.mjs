// Checks turnwire's UI Message Streams and UIMessages with the real `ai` package (v7, and the
// strict-schema v5 / v6 releases under the aliases ai-v5 / ai-v6).
//
// Input: TURNWIRE_VERCEL_CORPUS = a directory written by tests/conformance/test_vercel_node.py:
//   expectations.json  {lanes: [{setting, package, skipApproval, target?}], scenarios: {...}, histories: {...}}
//   <setting>/<scenario>.sse   the SSE body turnwire produced for that client-version setting
//   messages/<history>.json    UIMessages rendered by turnwire.formats.vercel.render_messages
//
// Live mode (tests/conformance/test_vercel_live_node.py): with SERVER_URL set, a scenario that has a
// `request` body is POSTed to `${SERVER_URL}/invoke` (vercel format, SSE, `x-ai-sdk-version: <setting>`
// unless the setting is "default"; `target` names the version the server answers for when it differs)
// and its response body is checked instead of a file. A scenario with `continuation: {request,
// approved}` first POSTs `request`, assembles the paused message with the lane's package, answers
// its approval with the id the server sent, and checks the stream of the resend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const CORPUS = process.env.TURNWIRE_VERCEL_CORPUS;
const SERVER_URL = process.env.SERVER_URL;
if (!CORPUS) throw new Error('TURNWIRE_VERCEL_CORPUS must name the corpus directory');

const PACKAGES = {
  ai: await import('ai'),
  'ai-v5': await import('ai-v5'),
  'ai-v6': await import('ai-v6'),
};
const spec = JSON.parse(await readFile(path.join(CORPUS, 'expectations.json'), 'utf8'));

function sessionId(lane, name) {
  return `live-${lane.package}-${lane.setting}-${name}-${Math.random().toString(36).slice(2, 10)}`;
}

async function post(lane, body) {
  const res = await fetch(`${SERVER_URL}/invoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-ag-messages-format': 'vercel',
      ...(lane.setting === 'default' ? {} : { 'x-ai-sdk-version': lane.setting }),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  return new Uint8Array(await res.arrayBuffer());
}

// The paused assistant message as the lane's client holds it, and the resend that answers its
// approval: v6/v7 move the tool part to `approval-responded` (addToolApprovalResponse); ai 5 has no
// approval states, so its resend adds a `tool-approval-response` part naming the data-interaction id.
async function answerApproval(ai, v5, firstBytes, approved) {
  const { chunks, failures } = await parseChunks(ai, firstBytes);
  assert.deepEqual(failures, [], `first turn: uiMessageChunkSchema rejected chunks:\n${failures.join('\n')}`);
  const { message: paused, errors } = await assemble(ai, chunks);
  assert.deepEqual(errors, [], 'first turn: errors while assembling');
  const resend = structuredClone(paused);
  if (v5) {
    const gate = paused.parts.find((p) => p.type === 'data-interaction' && p.data?.kind === 'user_approval');
    assert.ok(gate, `first turn has no approval data part: ${JSON.stringify(paused)}`);
    const toolCallId = gate.data.payload.toolCallId;
    resend.parts.push({ type: 'tool-approval-response', approvalId: gate.id, toolCallId, approved });
    return { history: paused, resend };
  }
  const part = Object.values(toolParts(resend)).find((p) => p.state === 'approval-requested');
  assert.ok(part, `first turn has no approval-requested tool part: ${JSON.stringify(paused)}`);
  part.state = 'approval-responded';
  part.approval = { ...part.approval, approved };
  return { history: resend, resend };
}

// The body to check and the assistant message the client already holds (a continuation's history).
async function streamBody(lane, name, scenario, ai, v5) {
  if (SERVER_URL && scenario.continuation) {
    const { request, approved } = scenario.continuation;
    const body = { ...structuredClone(request), session_id: sessionId(lane, name) };
    const { history, resend } = await answerApproval(ai, v5, await post(lane, body), approved);
    body.data.inputs.messages.push(resend);
    return { bytes: await post(lane, body), history };
  }
  if (SERVER_URL && scenario.request) {
    const body = { ...structuredClone(scenario.request), session_id: sessionId(lane, name) };
    return { bytes: await post(lane, body), history: undefined };
  }
  const history = v5 ? (scenario.historyV5 ?? scenario.history) : scenario.history;
  const bytes = new Uint8Array(await readFile(path.join(CORPUS, lane.setting, `${name}.sse`)));
  return { bytes, history };
}

// Deliver the body in small pieces so frames straddle reads, as they do on a real socket.
function byteStream(bytes, size = 37) {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.subarray(i, i + size));
      controller.close();
    },
  });
}

async function parseChunks(ai, bytes) {
  const chunks = [];
  const failures = [];
  const parsed = ai.parseJsonEventStream({ stream: byteStream(bytes), schema: ai.uiMessageChunkSchema });
  for await (const result of parsed) {
    if (result.success) chunks.push(result.value);
    else failures.push(`${result.error?.message ?? result.error}\n  raw: ${JSON.stringify(result.rawValue)}`);
  }
  return { chunks, failures };
}

// Protocol rules the schema cannot see (reference vercel-ui-stream.md §7.2 "chunk lint").
function lint(chunks, knownToolCallIds) {
  const problems = [];
  const open = { text: new Set(), reasoning: new Set() };
  const tools = new Set(knownToolCallIds);
  const approvals = new Set();
  if (chunks[0]?.type !== 'start') problems.push(`first chunk is ${chunks[0]?.type}, not start`);
  if (chunks.at(-1)?.type !== 'finish') problems.push(`last chunk is ${chunks.at(-1)?.type}, not finish`);
  // A continuation sends the outputs of calls from the history first, then opens the step
  // (the SDK's own order, reference vercel-ui-stream.md §6).
  let first = 1;
  while (/^tool-output-/.test(chunks[first]?.type) && tools.has(chunks[first].toolCallId)) first++;
  if (chunks[first]?.type !== 'start-step') problems.push(`chunk #${first} is ${chunks[first]?.type}, not start-step`);
  for (const [i, c] of chunks.entries()) {
    const [kind, phase] = c.type.split(/-(start|delta|end)$/);
    if ((kind === 'text' || kind === 'reasoning') && phase) {
      if (phase === 'start') open[kind].add(c.id);
      else if (!open[kind].has(c.id)) problems.push(`#${i} ${c.type} for unopened id ${c.id}`);
      if (phase === 'end') open[kind].delete(c.id);
    }
    if (c.type === 'finish-step' && open.text.size + open.reasoning.size > 0)
      problems.push(`#${i} finish-step with open parts ${[...open.text, ...open.reasoning]}`);
    if (c.type === 'tool-input-start' || c.type === 'tool-input-available') tools.add(c.toolCallId);
    else if (c.type === 'tool-approval-response') {
      // It names its request, not a call: the request must have come first.
      if (!approvals.has(c.approvalId)) problems.push(`#${i} ${c.type} for unrequested approval ${c.approvalId}`);
    } else if (c.type.startsWith('tool-') && !tools.has(c.toolCallId))
      problems.push(`#${i} ${c.type} for unknown toolCallId ${c.toolCallId}`);
    if (c.type === 'tool-approval-request') approvals.add(c.approvalId);
  }
  return problems;
}

async function assemble(ai, chunks, history) {
  const errors = [];
  const stream = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let message;
  const options = { stream, onError: (e) => errors.push(e?.message ?? String(e)) };
  if (history) options.message = structuredClone(history);
  for await (const m of ai.readUIMessageStream(options)) message = m;
  return { message, errors };
}

function toolParts(message) {
  return Object.fromEntries(
    message.parts
      .filter((p) => p.type.startsWith('tool-') || p.type === 'dynamic-tool')
      .map((p) => [p.toolCallId, p]),
  );
}

function checkMessage(message, expect, { v5, v7 }) {
  const text = message.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
  if (expect.text !== undefined) assert.equal(text, expect.text, 'assembled text');
  const reasoning = message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text).join('');
  if (expect.reasoning !== undefined) assert.equal(reasoning, expect.reasoning, 'assembled reasoning');
  const expectedTools = (v5 && expect.toolsV5) || (v7 && expect.toolsV7) || expect.tools;
  if (expectedTools) {
    const parts = toolParts(message);
    assert.deepEqual(Object.keys(parts).sort(), Object.keys(expectedTools).sort(), 'tool call ids');
    for (const [id, want] of Object.entries(expectedTools)) {
      const part = parts[id];
      for (const [key, value] of Object.entries(want)) {
        if (key === 'name') {
          const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice(5);
          assert.equal(name, value, `tool ${id} name`);
        } else if (key === 'approvalId') assert.equal(part.approval?.id, value, `tool ${id} approval id`);
        else if (key === 'approved') assert.equal(part.approval?.approved, value, `tool ${id} approved`);
        else assert.deepEqual(part[key], value, `tool ${id} ${key}`);
      }
    }
  }
  const expectedData = (v5 && expect.dataTypesV5) || expect.dataTypes;
  if (expectedData) {
    const dataTypes = message.parts.filter((p) => p.type.startsWith('data-')).map((p) => p.type);
    assert.deepEqual(dataTypes, expectedData, 'data part types');
  }
  if (expect.files) {
    const files = message.parts.filter((p) => p.type === 'file').map((p) => ({ url: p.url, mediaType: p.mediaType }));
    assert.deepEqual(files, expect.files, 'file parts');
  }
  if (expect.sources) {
    const sources = message.parts
      .filter((p) => p.type.startsWith('source-'))
      .map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)));
    assert.deepEqual(sources, expect.sources, 'source parts');
  }
  if (expect.customV7) {
    const custom = message.parts
      .filter((p) => p.type === 'custom')
      .map((p) => Object.fromEntries(Object.entries(p).filter(([k, v]) => k !== 'type' && v !== undefined)));
    assert.deepEqual(custom, v7 ? expect.customV7 : [], 'custom parts');
  }
  const expectedTypes = (v5 && expect.partTypesV5) || (v7 && expect.partTypesV7) || expect.partTypes;
  if (expectedTypes) {
    const types = message.parts.map((p) => p.type).filter((t) => t !== 'step-start');
    assert.deepEqual(types, expectedTypes, 'part types (but step-start)');
  }
  if (expect.steps !== undefined) {
    assert.equal(message.parts.filter((p) => p.type === 'step-start').length, expect.steps, 'step-start parts');
  }
  if (expect.metadata) {
    for (const [key, value] of Object.entries(expect.metadata)) {
      assert.deepEqual(message.metadata?.[key], value, `metadata.${key}`);
    }
  }
  if (expect.messageId !== undefined) assert.equal(message.id, expect.messageId, 'message id');
}

function checkChunks(chunks, expect, { v5 }) {
  const leading = (v5 && expect.leadingTypesV5) || expect.leadingTypes;
  if (leading) assert.deepEqual(chunks.slice(0, leading.length).map((c) => c.type), leading, 'leading chunks');
  for (const type of expect.absentTypes ?? []) {
    assert.ok(!chunks.some((c) => c.type === type), `a ${type} chunk was sent`);
  }
}

for (const lane of spec.lanes) {
  const ai = PACKAGES[lane.package];
  const v5 = (lane.target ?? lane.setting) === '5';
  for (const [name, scenario] of Object.entries(spec.scenarios)) {
    if (lane.skipApproval && scenario.approval) continue;
    test(`${lane.package} reads the ${lane.setting} stream of "${name}"`, async () => {
      const { bytes, history } = await streamBody(lane, name, scenario, ai, v5);
      const body = new TextDecoder().decode(bytes);
      assert.ok(body.endsWith('data: [DONE]\n\n'), 'body ends with data: [DONE]');
      const { chunks, failures } = await parseChunks(ai, bytes);
      assert.deepEqual(failures, [], `uiMessageChunkSchema rejected chunks:\n${failures.join('\n')}`);
      const known = history ? history.parts.filter((p) => p.toolCallId).map((p) => p.toolCallId) : [];
      assert.deepEqual(lint(chunks, known), [], 'chunk lint');
      const finish = chunks.at(-1);
      const expect = scenario.expect;
      checkChunks(chunks, expect, { v5 });
      const wantReason = (v5 && expect.finishReasonV5) || expect.finishReason;
      assert.equal(finish.finishReason, wantReason ?? undefined, 'finishReason');
      const { message, errors } = await assemble(ai, chunks, history);
      assert.deepEqual(errors, expect.errors ?? [], 'errors reported while assembling');
      assert.ok(message, 'an assistant message was assembled');
      checkMessage(message, expect, { v5, v7: lane.setting === '7' });
      if (expect.continuesHistory) assert.equal(message.id, history.id, 'the reply continues the paused message');
      const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
      // readUIMessageStream of ai 5/6 emits no snapshot for a bare step-start, so a turn without
      // output leaves an empty message there, which their validateUIMessages refuses.
      const contentful = message.parts.some((p) => p.type !== 'step-start');
      if (contentful || lane.package === 'ai') await ai.validateUIMessages({ messages: [user, message] });
      else assert.ok(expect.empty, `an unexpectedly empty message: ${JSON.stringify(message)}`);
    });
  }
}

for (const [name, history] of Object.entries(spec.histories ?? {})) {
  const pkg = history.package ?? 'ai';
  test(`${pkg} validates the rendered UIMessages of "${name}"`, async () => {
    const messages = JSON.parse(await readFile(path.join(CORPUS, 'messages', `${name}.json`), 'utf8'));
    const ai = PACKAGES[pkg];
    const validated = await ai.validateUIMessages({ messages });
    assert.equal(validated.length, messages.length);
    const parts = Object.fromEntries(messages.flatMap((m) => Object.entries(toolParts(m))));
    for (const [id, want] of Object.entries(history.tools ?? {})) {
      assert.ok(parts[id], `tool part ${id} rendered`);
      for (const [key, value] of Object.entries(want)) {
        if (key === 'approved') assert.equal(parts[id].approval?.approved, value, `${id} approved`);
        else assert.deepEqual(parts[id][key], value, `${id} ${key}`);
      }
    }
    assert.deepEqual(messages.map((m) => m.role), history.roles, 'roles');
    await ai.convertToModelMessages(validated);
  });
}
