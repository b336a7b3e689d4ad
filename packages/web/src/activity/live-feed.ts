import { EventEmitter } from "node:events";

/** What changed: the console's open pages re-render the parts that show it. */
export type LiveTopic = "conversations" | "requests" | "tasks" | "schedules" | "access" | "health";

export interface LiveEvent {
  readonly topic: LiveTopic;
  /** The conversation that changed, for `conversations`. */
  readonly key?: string;
  /** Set for chat typing events: the bot started (true) or stopped (false) working there. */
  readonly working?: boolean;
}

/**
 * Change notices for the console's server-sent events, inside this process. Pages subscribe and
 * fetch the fresh state themselves, so a notice carries no data and a missed one costs nothing
 * but a moment's staleness.
 */
export class LiveFeed {
  readonly #events = new EventEmitter<{ event: [LiveEvent] }>();

  constructor() {
    // One listener per open console tab.
    this.#events.setMaxListeners(0);
  }

  publish(event: LiveEvent): void {
    this.#events.emit("event", event);
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.#events.on("event", listener);
    return () => this.#events.off("event", listener);
  }
}
