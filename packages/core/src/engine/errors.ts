/**
 * The engine is stopping and takes no new work. Adapters answer the platform so that it delivers
 * the event again later (Slack HTTP: a 5xx; Socket Mode: no ack): nothing was marked seen.
 */
export class EngineStoppingError extends Error {
  constructor() {
    super("the engine is shutting down; message not accepted (the platform will deliver it again)");
    this.name = "EngineStoppingError";
  }
}
