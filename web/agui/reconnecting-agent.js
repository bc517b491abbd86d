// ReconnectingHttpAgent: an @ag-ui/client HttpAgent whose connect() works against turnwire.
//
// @ag-ui/client's AbstractAgent.connectAgent() calls connect(), which HttpAgent leaves
// unimplemented. This subclass implements it with turnwire's
// GET <agent url>/threads/{threadId}/connect: the thread's stored messages (MESSAGES_SNAPSHOT,
// and its last STATE_SNAPSHOT if any), then the run still running on it, live, from any worker.
// A page that reloads mid-run calls connectAgent() and ends with the same messages as if it had
// never left.
//
//   import { ReconnectingHttpAgent } from './reconnecting-agent.js'; // served at /agui/client.js
//   const agent = new ReconnectingHttpAgent({ url: 'https://host/agui', threadId });
//   await agent.connectAgent();            // on load: the thread, and its running run if any
//   await agent.runAgent();                // as with HttpAgent
//
// - Runs it starts send `x-ag-on-disconnect: continue`, so a reload does not cancel the run it
//   leaves (`continueOnDisconnect: false` in the config sends nothing: the server decides).
// - The connect stream's events carry SSE ids; the last one is kept in `lastEventId`. Calling
//   connectAgent() again on the same agent (its connection broke) sends it as Last-Event-ID and
//   gets only the events after it. A run this agent starts itself resets it.
// - getCapabilities() reads the agent's AG-UI capabilities document, GET <agent url>/capabilities
//   (HttpAgent has no getCapabilities()).
// - It imports '@ag-ui/client' by its bare name: your bundler (or an import map) resolves it.
//
// Source: web/agui/reconnecting-agent.js in the turnwire repository (a copy ships in the Python
// package and is served at GET /agui/client.js).
import { HttpAgent, runHttpRequest, transformHttpEventStream } from '@ag-ui/client';

export class ReconnectingHttpAgent extends HttpAgent {
  /**
   * @param {import('@ag-ui/client').HttpAgentConfig & {
   *   lastEventId?: string, continueOnDisconnect?: boolean }} config
   */
  constructor(config) {
    super(config);
    /** The id of the last event a connect stream delivered (`<turn id>:<n>`), if any. */
    this.lastEventId = config.lastEventId;
    this.continueOnDisconnect = config.continueOnDisconnect ?? true;
  }

  /** The connect route of this agent's URL: `<url>/threads/{threadId}/connect`. */
  connectUrl(threadId) {
    const url = new URL(this.url, globalThis.location?.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/threads/${encodeURIComponent(threadId)}/connect`;
    return url.toString();
  }

  /** The capabilities route of this agent's URL: `<url>/capabilities`. */
  capabilitiesUrl() {
    const url = new URL(this.url, globalThis.location?.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/capabilities`;
    return url.toString();
  }

  /** The agent's AG-UI `AgentCapabilities` (what it declares; absent means unknown). */
  async getCapabilities() {
    const response = await this.fetch(this.capabilitiesUrl(), {
      method: 'GET',
      headers: { ...this.headers, Accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    return response.json();
  }

  requestInit(input) {
    const init = super.requestInit(input);
    if (this.continueOnDisconnect) init.headers = { ...init.headers, 'x-ag-on-disconnect': 'continue' };
    return init;
  }

  runAgent(parameters, subscriber) {
    this.lastEventId = undefined; // a run of its own: its stream carries no ids
    return super.runAgent(parameters, subscriber);
  }

  connectAgent(parameters, subscriber) {
    // abortRun() stops a connect stream as it stops a run.
    this.abortController = parameters?.abortController ?? new AbortController();
    return super.connectAgent(parameters, subscriber);
  }

  connect(input) {
    const headers = { ...this.headers, Accept: 'text/event-stream' };
    if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
    const request = async () => {
      const response = await this.fetch(this.connectUrl(input.threadId), {
        method: 'GET',
        headers,
        signal: this.abortController.signal,
      });
      return this.#keepingIds(response);
    };
    return transformHttpEventStream(runHttpRequest(request), this.debugLogger);
  }

  /** `response` with its body passed through unchanged, each SSE `id:` field noted on the way. */
  #keepingIds(response) {
    if (!response.ok || !response.body) return response;
    const decoder = new TextDecoder();
    let partial = '';
    const note = (line) => {
      if (line.startsWith('id:')) this.lastEventId = line.slice(line.startsWith('id: ') ? 4 : 3);
    };
    const watch = new TransformStream({
      transform: (chunk, controller) => {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
        partial = lines.pop();
        lines.forEach(note);
        controller.enqueue(chunk);
      },
      flush: () => note(partial),
    });
    return new Response(response.body.pipeThrough(watch), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
}
