// Agenta SSE streams read by a standard SSE parser (eventsource-parser, the one the `ai` package
// uses): every event carries `id: <trace id>:<n>`, keepalive comments between events never become
// events, and a client that drops mid-turn and reconnects to GET /invoke/{session}/stream with
// `Last-Event-ID` gets exactly the events after its last one, then the turn to its end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createParser } from 'eventsource-parser';

const SERVER_URL = process.env.SERVER_URL;
const RESUME_URL = process.env.RESUME_URL ?? SERVER_URL;
const COUNT = Number(process.env.COUNT ?? 60);
if (!SERVER_URL) throw new Error('SERVER_URL is not set: run this through tests/conformance/test_agenta_sse_node.py');

const decoder = () => new TextDecoder();

// Read `response`'s events until `stop(events)` says so (or the stream ends).
async function readEvents(response, stop = () => false) {
  const events = [];
  const comments = [];
  const parser = createParser({
    onEvent: (event) => events.push({ id: event.id, data: JSON.parse(event.data) }),
    onComment: (comment) => comments.push(comment),
  });
  const reader = response.body.getReader();
  const text = decoder();
  try {
    while (!stop(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(text.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return { events, comments };
}

function invoke(base, session, text, headers = {}, signal = undefined) {
  return fetch(`${base}/invoke`, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ session_id: session, data: { inputs: { messages: [{ role: 'user', content: text }] } } }),
  });
}

const numbers = (events) => events.filter((e) => e.data.type === 'message_delta').map((e) => e.data.data.delta);

test('every Agenta event has its id; keepalives stay comments', async () => {
  const response = await fetch(`${SERVER_URL}/agents/gap/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ data: { inputs: { messages: [{ role: 'user', content: 'x' }] } } }),
  });
  assert.equal(response.status, 200);
  const trace = response.headers.get('x-ag-trace-id');
  const { events, comments } = await readEvents(response);
  assert.ok(comments.length >= 2, `keepalive comments expected in the gap, got ${comments.length}`);
  assert.ok(comments.every((c) => c.trim() === 'keepalive'));
  assert.deepEqual(events.map((e) => e.id), events.map((_, i) => `${trace}:${i + 1}`));
  assert.equal(events.at(-1).data.type, 'done');
  assert.equal(numbers(events).join(''), 'beforeafter');
});

test('a dropped client reconnects with Last-Event-ID and gets exactly the rest', async () => {
  const session = `resume-${Date.now()}`;
  const abort = new AbortController();
  const first = await invoke(SERVER_URL, session, `count to ${COUNT}`, { 'x-ag-on-disconnect': 'continue' }, abort.signal);
  assert.equal(first.status, 200);
  const trace = first.headers.get('x-ag-trace-id');
  const seen = (await readEvents(first, (events) => events.length >= 11)).events;
  // Another client reads the same turn from its first event, uninterrupted (started once the turn
  // has sent events, so its log is surely mirrored by now for the other worker).
  const wholeResponse = await fetch(`${RESUME_URL}/invoke/${session}/stream`);
  assert.equal(wholeResponse.status, 200);
  const whole = readEvents(wholeResponse);
  abort.abort();
  // A read may bring several events: the client's last is the last it parsed.
  const last = seen.at(-1).id;
  assert.equal(last, `${trace}:${seen.length}`);

  const resumed = await fetch(`${RESUME_URL}/invoke/${session}/stream`, { headers: { 'last-event-id': last } });
  assert.equal(resumed.status, 200);
  assert.equal(resumed.headers.get('x-ag-trace-id'), trace);
  const rest = (await readEvents(resumed)).events;
  assert.equal(rest[0].id, `${trace}:${seen.length + 1}`);
  const all = [...seen, ...rest];
  assert.deepEqual(all, (await whole).events);
  assert.deepEqual(all.map((e) => e.id), all.map((_, i) => `${trace}:${i + 1}`));
  assert.deepEqual(numbers(all), Array.from({ length: COUNT }, (_, i) => String(i + 1)));
  assert.equal(all.at(-1).data.type, 'done');
  assert.equal(all.at(-1).data.data.stopReason, 'end_turn');

  const after = await fetch(`${RESUME_URL}/invoke/${session}/stream`, { headers: { 'last-event-id': last } });
  assert.equal(after.status, 204);
  const bad = await fetch(`${RESUME_URL}/invoke/${session}/stream`, { headers: { 'last-event-id': 'nonsense' } });
  assert.equal(bad.status, 400);
  assert.deepEqual((await bad.json()).detail[0].loc, ['header', 'last-event-id']);
});
