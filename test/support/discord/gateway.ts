import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { userPayload } from "./payloads.ts";
import { nextSnowflake } from "./snowflakes.ts";
import type { DiscordWorld } from "./world.ts";

const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  Resume: 6,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;
const MESSAGE_CONTENT_INTENT = 1 << 15;

export interface IdentifyRecord {
  readonly intents: number;
  readonly at: number;
}

interface Session {
  readonly socket: WebSocket;
  sequence: number;
  ready: boolean;
}

/**
 * The gateway WebSocket (v10, JSON, uncompressed): HELLO, IDENTIFY → READY + GUILD_CREATE,
 * heartbeat ACKs, then every dispatch the world produces.
 */
export class FakeGateway {
  readonly identifies: IdentifyRecord[] = [];
  /** WebSocket connections opened, identified or not. */
  connections = 0;
  /** Every dispatch sent, for replaying the last one as Discord does after a resume. */
  readonly sent: { event: string; data: unknown }[] = [];
  readonly #world: DiscordWorld;
  readonly #server: WebSocketServer;
  readonly #sessions = new Set<Session>();

  constructor(world: DiscordWorld, http: Server, url: () => string) {
    this.#world = world;
    this.#server = new WebSocketServer({ server: http, path: "/gateway" });
    this.#server.on("connection", (socket, request) => {
      const params = new URL(request.url ?? "/", "http://stand-in").searchParams;
      if (params.get("encoding") !== "json" || params.has("compress")) {
        socket.close(4002, "the stand-in speaks uncompressed JSON only");
        return;
      }
      this.connections++;
      const session: Session = { socket, sequence: 0, ready: false };
      this.#sessions.add(session);
      socket.on("close", () => this.#sessions.delete(session));
      socket.on("message", (raw) =>
        this.#receive(session, JSON.parse(raw.toString()) as { op: number; d: unknown }, url),
      );
      socket.send(JSON.stringify({ op: Op.Hello, d: { heartbeat_interval: 41_250 }, s: null, t: null }));
    });
    world.dispatch = (event, data) => this.dispatch(event, data);
  }

  dispatch(event: string, data: unknown): void {
    this.sent.push({ event, data });
    for (const session of this.#sessions) if (session.ready) this.#send(session, event, data);
  }

  /** Sends an earlier dispatch again (same ids), as the gateway does when it replays after a resume. */
  replay(index = this.sent.length - 1): void {
    const entry = this.sent[index];
    if (!entry) throw new Error("nothing was dispatched yet");
    for (const session of this.#sessions) if (session.ready) this.#send(session, entry.event, entry.data);
  }

  get connected(): number {
    return [...this.#sessions].filter((session) => session.ready).length;
  }

  async close(): Promise<void> {
    for (const session of this.#sessions) session.socket.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #receive(session: Session, packet: { op: number; d: unknown }, url: () => string): void {
    switch (packet.op) {
      case Op.Heartbeat:
        session.socket.send(JSON.stringify({ op: Op.HeartbeatAck, d: null, s: null, t: null }));
        return;
      case Op.Identify:
        this.#identify(session, packet.d as { token: string; intents: number }, url);
        return;
      case Op.Resume:
        session.socket.send(JSON.stringify({ op: Op.InvalidSession, d: false, s: null, t: null }));
        return;
      default:
        return;
    }
  }

  #identify(session: Session, identify: { token: string; intents: number }, url: () => string): void {
    const world = this.#world;
    this.identifies.push({ intents: identify.intents, at: Date.now() });
    if (identify.token !== world.token) {
      session.socket.close(4004, "Authentication failed.");
      return;
    }
    if ((identify.intents & MESSAGE_CONTENT_INTENT) !== 0 && !world.messageContentIntentEnabled) {
      session.socket.close(4014, "Disallowed intent(s).");
      return;
    }
    session.ready = true;
    this.#send(session, "READY", {
      v: 10,
      user: { ...userPayload(world.bot), verified: true, mfa_enabled: false },
      guilds: [{ id: world.guildId, unavailable: true }],
      session_id: nextSnowflake(),
      resume_gateway_url: url(),
      shard: [0, 1],
      application: { id: world.applicationId, flags: 0 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
    });
    this.#send(session, "GUILD_CREATE", world.guildCreate());
  }

  #send(session: Session, event: string, data: unknown): void {
    session.sequence += 1;
    session.socket.send(JSON.stringify({ op: Op.Dispatch, t: event, s: session.sequence, d: data }));
  }
}
