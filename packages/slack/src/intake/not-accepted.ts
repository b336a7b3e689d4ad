/**
 * The engine did not take an event (stopping, store down). Carried through Bolt so the receiver
 * withholds the acknowledgement and Slack delivers the event again. `code` keeps Bolt from
 * wrapping it.
 */
export class EventNotAccepted extends Error {
  readonly code = "switchboard_event_not_accepted";
  constructor(cause: unknown) {
    super(`the engine did not accept the event: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "EventNotAccepted";
  }
}

/** Whether Bolt's error (possibly one of several listeners' errors) is a refusal by the engine. */
export function isNotAccepted(error: unknown): boolean {
  if (error instanceof EventNotAccepted) return true;
  if (typeof error !== "object" || error === null) return false;
  const originals = (error as { originals?: unknown }).originals;
  if (Array.isArray(originals)) return originals.some(isNotAccepted);
  const original = (error as { original?: unknown }).original;
  return original !== undefined && original !== error && isNotAccepted(original);
}
