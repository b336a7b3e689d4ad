import { SIGNING_SECRET, slackSignature } from "./event-payloads.ts";
import type { SocketModeStandIn } from "./socket-mode-stand-in.ts";

export interface Delivery {
  /** HTTP status of the app's response; 200 for a Socket Mode ack. */
  readonly status: number;
  /** What the app answered with (HTTP body as JSON, or the Socket Mode ack payload), if anything. */
  readonly body?: unknown;
}

export interface SignatureOverride {
  /** Seconds to shift the request timestamp by (negative: in the past). */
  readonly skewSeconds?: number;
  /** Sign with this secret instead of the real one. */
  readonly secret?: string;
  /** Leave the signature headers out entirely. */
  readonly unsigned?: boolean;
}

/** How Slack's events reach the app: signed HTTP requests, or envelopes on the Socket Mode WebSocket. */
export interface EventTransport {
  deliverEvent(body: Record<string, unknown>, retryNum?: number): Promise<Delivery>;
  deliverSlashCommand(payload: Record<string, string>): Promise<Delivery>;
  /** Interactivity (a button press): a form whose `payload` is JSON over HTTP, an `interactive` envelope over Socket Mode. */
  deliverInteraction(payload: Record<string, unknown>): Promise<Delivery>;
}

export class HttpEventTransport implements EventTransport {
  readonly #url: string;
  readonly #secret: string;

  /** `secret`: the app's signing secret, which Slack signs every request with. */
  constructor(url: string, secret = SIGNING_SECRET) {
    this.#url = url;
    this.#secret = secret;
  }

  deliverEvent(body: Record<string, unknown>, retryNum?: number): Promise<Delivery> {
    const headers: Record<string, string> =
      retryNum === undefined
        ? {}
        : { "x-slack-retry-num": String(retryNum), "x-slack-retry-reason": "http_timeout" };
    return this.send(JSON.stringify(body), "application/json", headers);
  }

  deliverSlashCommand(payload: Record<string, string>): Promise<Delivery> {
    return this.send(new URLSearchParams(payload).toString(), "application/x-www-form-urlencoded");
  }

  deliverInteraction(payload: Record<string, unknown>): Promise<Delivery> {
    const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(form, "application/x-www-form-urlencoded");
  }

  /** Posts a raw body the way Slack does, signed unless told otherwise. */
  async send(
    body: string,
    contentType: string,
    extraHeaders: Record<string, string> = {},
    signature: SignatureOverride = {},
  ): Promise<Delivery> {
    const timestamp = Math.floor(Date.now() / 1000) + (signature.skewSeconds ?? 0);
    const signed: Record<string, string> = signature.unsigned
      ? {}
      : {
          "x-slack-request-timestamp": String(timestamp),
          "x-slack-signature": slackSignature(signature.secret ?? this.#secret, timestamp, body),
        };
    const response = await fetch(this.#url, {
      method: "POST",
      headers: { "content-type": contentType, ...signed, ...extraHeaders },
      body,
    });
    const text = await response.text();
    // Slack ignores the body of an acknowledgement; some apps answer a plain "ok".
    const json = response.headers.get("content-type")?.includes("json") ?? false;
    return { status: response.status, ...(text === "" ? {} : { body: json ? JSON.parse(text) : text }) };
  }
}

export class SocketEventTransport implements EventTransport {
  readonly #socket: SocketModeStandIn;

  constructor(socket: SocketModeStandIn) {
    this.#socket = socket;
  }

  async deliverEvent(body: Record<string, unknown>, retryNum?: number): Promise<Delivery> {
    const ack = await this.#socket.send("events_api", body, retryNum ?? 0);
    return { status: 200, ...(Object.keys(ack).length === 0 ? {} : { body: ack }) };
  }

  async deliverSlashCommand(payload: Record<string, string>): Promise<Delivery> {
    const ack = await this.#socket.send("slash_commands", payload);
    return { status: 200, ...(Object.keys(ack).length === 0 ? {} : { body: ack }) };
  }

  async deliverInteraction(payload: Record<string, unknown>): Promise<Delivery> {
    const ack = await this.#socket.send("interactive", payload);
    return { status: 200, ...(Object.keys(ack).length === 0 ? {} : { body: ack }) };
  }
}
