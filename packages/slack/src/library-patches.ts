/**
 * Every place this package reaches into Bolt's internals, in one file. Written against
 * @slack/bolt 5.1.0 and the @slack/socket-mode 3.1.0 it brings; Bolt is pinned to that exact
 * version in package.json (socket-mode follows through the lockfile), and library-patches.test.ts
 * fails when one of these internals changes shape, so an upgrade that breaks a patch fails a test,
 * not a deployment.
 *
 * - Socket Mode acks after intake: SocketModeReceiver's constructor subscribes to its client's
 *   `slack_event` and acks before any listener runs; that listener is replaced by ours.
 * - Socket Mode envelopes are screened: the client parses every `ws_message` in a promise nobody
 *   awaits; our screen runs before its reader.
 * - HTTP bodies are read once: Bolt's HTTPReceiver takes a request whose `rawBody` is a Buffer as
 *   already buffered (HTTPModuleFunctions.bufferIncomingMessage) and parses that.
 */
import type { IncomingMessage } from "node:http";
import type { SocketModeReceiver } from "@slack/bolt";

/** What the Socket Mode client emits as `slack_event` for each envelope. */
export interface SocketEnvelope {
  readonly ack: (response?: Record<string, unknown>) => Promise<void>;
  readonly type: string;
  readonly body: unknown;
  readonly retry_num?: number;
  readonly retry_reason?: string;
}

/** Removes Bolt's `slack_event` listener (it acks first) and makes `listener` the only one. */
export function replaceSocketEventListener(
  receiver: SocketModeReceiver,
  listener: (envelope: SocketEnvelope) => Promise<void>,
): void {
  receiver.client.removeAllListeners("slack_event");
  receiver.client.on("slack_event", listener);
}

/**
 * Puts `admit` in front of the Socket Mode client's own reader of raw WebSocket messages: a
 * message it refuses never reaches the reader; a reader's failure goes to `onFailure`.
 */
export function screenSocketMessages(
  receiver: SocketModeReceiver,
  admit: (data: unknown) => boolean,
  onFailure: (error: unknown) => void,
): void {
  const client = receiver.client;
  const readers = client.listeners("ws_message");
  client.removeAllListeners("ws_message");
  client.on("ws_message", (data: unknown, isBinary: boolean) => {
    if (!admit(data)) return;
    for (const read of readers) {
      Promise.resolve(read.call(client, data, isBinary)).catch(onFailure);
    }
  });
}

/** Hands Bolt a request whose body was already read, so it parses `rawBody` instead of the spent stream. */
export function withBufferedBody(request: IncomingMessage, rawBody: Buffer): IncomingMessage {
  return Object.assign(request, { rawBody });
}
