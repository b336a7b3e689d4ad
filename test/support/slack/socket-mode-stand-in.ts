import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { APP_ID } from "./event-payloads.ts";

export type EnvelopeType = "events_api" | "slash_commands" | "interactive";

/**
 * A local Socket Mode endpoint: says `hello` when the app connects, sends envelopes the way Slack
 * does, and records the app's acknowledgements (`{ envelope_id, payload }`).
 */
export class SocketModeStandIn {
  readonly #server: WebSocketServer;
  readonly #sockets = new Set<WebSocket>();
  readonly acks = new Map<string, Record<string, unknown>>();
  readonly #waiting = new Map<string, (payload: Record<string, unknown>) => void>();
  connections = 0;

  private constructor(server: WebSocketServer) {
    this.#server = server;
    server.on("connection", (socket) => {
      this.connections += 1;
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as {
          envelope_id?: string;
          payload?: Record<string, unknown>;
        };
        if (!message.envelope_id) return;
        this.acks.set(message.envelope_id, message.payload ?? {});
        this.#waiting.get(message.envelope_id)?.(message.payload ?? {});
      });
      socket.send(
        JSON.stringify({
          type: "hello",
          num_connections: this.#sockets.size,
          debug_info: { host: "stand-in", build_number: 1, approximate_connection_time: 18_060 },
          connection_info: { app_id: APP_ID },
        }),
      );
    });
  }

  static async start(): Promise<SocketModeStandIn> {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    return new SocketModeStandIn(server);
  }

  /** What apps.connections.open returns. */
  url(): string {
    return `ws://127.0.0.1:${(this.#server.address() as AddressInfo).port}/link/?ticket=${randomUUID()}`;
  }

  get connected(): boolean {
    return this.#sockets.size > 0;
  }

  /** Sends one envelope to every connected app; resolves with the ack payload (fails after `timeoutMs`). */
  send(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    retryAttempt = 0,
    timeoutMs = 3_000,
  ): Promise<Record<string, unknown>> {
    const envelopeId = randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== "events_api",
      ...(type === "events_api"
        ? { retry_attempt: retryAttempt, retry_reason: retryAttempt > 0 ? "timeout" : "" }
        : {}),
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(envelopeId);
        reject(new Error(`no ack for ${type} envelope within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(envelopeId, (ack) => {
        clearTimeout(timer);
        this.#waiting.delete(envelopeId);
        resolve(ack);
      });
      for (const socket of this.#sockets) socket.send(JSON.stringify(envelope));
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
