// The chat the node tests drive: ai's own AbstractChat over a plain in-memory state (what useChat
// holds in React), and a wait for a turn to end. Shared by the AI SDK tests; not a test itself.
import { AbstractChat } from 'ai';

class TestState {
  constructor() {
    this.status = 'ready';
    this.error = undefined;
    this.messages = [];
    this.snapshot = (thing) => structuredClone(thing);
  }
  pushMessage = (message) => { this.messages = this.messages.concat(message); };
  popMessage = () => { this.messages = this.messages.slice(0, -1); };
  replaceMessage = (index, message) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
}

export class TestChat extends AbstractChat {
  constructor(init) {
    const state = new TestState();
    super({ ...init, state });
    this.testState = state;
  }
}

/** The chat's status once it is ready or failed and `predicate()` holds; throws after `timeoutMs`. */
export async function settled(chat, predicate = () => true, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = chat.status;
    if ((status === 'ready' || status === 'error') && predicate()) return status;
    if (Date.now() > deadline) throw new Error(`chat still ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
