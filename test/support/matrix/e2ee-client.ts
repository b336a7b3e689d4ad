/**
 * A real end-to-end-encrypting Matrix user for tests against a real homeserver: matrix-js-sdk with
 * its Rust crypto (the same WASM build the bot uses), its crypto state in memory. It creates
 * encrypted rooms, invites, sends (encrypting), and reads what others sent (decrypting).
 */
import { waitFor } from "@switchboard/core/testing";
import {
  ClientEvent,
  createClient,
  type MatrixClient,
  type MatrixEvent,
  RoomEvent,
  RoomMemberEvent,
  SyncState,
} from "matrix-js-sdk";
import { type Logger, logger as sdkLogger } from "matrix-js-sdk/lib/logger.js";
import type { RegisteredUser } from "../../services/synapse-service.ts";

/** The SDK logs every sync and key exchange; a test reads what the client saw instead. */
const quiet: Logger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  getChild: () => quiet,
};

// Some of the SDK's modules log through its process-wide logger, not the client's: quiet too.
(sdkLogger as unknown as { setLevel(level: "silent"): void }).setLevel("silent");

const ENCRYPTION = {
  type: "m.room.encryption",
  state_key: "",
  content: { algorithm: "m.megolm.v1.aes-sha2" },
};

/** A message as its reader sees it after decryption. */
export interface SeenEvent {
  readonly eventId: string;
  readonly sender: string;
  /** Type on the wire: `m.room.encrypted` for anything sent encrypted. */
  readonly wireType: string;
  /** Type after decryption. */
  readonly type: string;
  readonly content: Record<string, unknown>;
  readonly decryptionFailed: boolean;
}

/** To-device messages this client meant for someone, kept back instead of sent. */
interface HeldToDevice {
  readonly eventType: string;
  readonly messages: Record<string, Record<string, unknown>>;
}

export class E2eeClient {
  readonly userId: string;
  readonly client: MatrixClient;
  readonly #events = new Map<string, MatrixEvent[]>();
  readonly #user: RegisteredUser;
  readonly #baseUrl: string;
  /** Users whose to-device messages (room keys among them) are held back. */
  readonly #holdFor = new Set<string>();
  readonly #held: HeldToDevice[] = [];
  /** Per room, who this client saw start typing, and when. */
  readonly #typing = new Map<string, { userId: string; at: number }[]>();

  private constructor(user: RegisteredUser, baseUrl: string) {
    this.userId = user.userId;
    this.#user = user;
    this.#baseUrl = baseUrl;
    this.client = createClient({
      baseUrl,
      accessToken: user.accessToken,
      userId: user.userId,
      deviceId: user.deviceId,
      logger: quiet,
      fetchFn: (resource, init) => this.#fetch(resource, init),
    });
    this.client.on(RoomEvent.Timeline, (event, room) => {
      const roomId = room?.roomId ?? event.getRoomId();
      if (roomId === undefined) return;
      const list = this.#events.get(roomId) ?? [];
      list.push(event);
      this.#events.set(roomId, list);
    });
    this.client.on(RoomMemberEvent.Typing, (_event, member) => {
      if (!member.typing) return;
      const typing = this.#typing.get(member.roomId) ?? [];
      typing.push({ userId: member.userId, at: Date.now() });
      this.#typing.set(member.roomId, typing);
    });
  }

  static async start(user: RegisteredUser, baseUrl: string): Promise<E2eeClient> {
    const e2ee = new E2eeClient(user, baseUrl);
    await e2ee.client.initRustCrypto({ useIndexedDB: false });
    const prepared = new Promise<void>((resolve) => {
      const onSync = (state: SyncState) => {
        if (state === SyncState.Prepared || state === SyncState.Syncing) {
          e2ee.client.off(ClientEvent.Sync, onSync);
          resolve();
        }
      };
      e2ee.client.on(ClientEvent.Sync, onSync);
    });
    await e2ee.client.startClient({ initialSyncLimit: 20 });
    await prepared;
    return e2ee;
  }

  /** An encrypted room with `invite` invited: a DM (`is_direct`, in our `m.direct`) or a private group. */
  createEncryptedRoom(
    invite: readonly string[],
    options: { direct?: boolean; name?: string } = {},
  ): Promise<string> {
    return this.createRoom(invite, { ...options, encrypted: true });
  }

  /** A room with `invite` invited: a DM or a private group, encrypted or plain. */
  async createRoom(
    invite: readonly string[],
    options: { direct?: boolean; name?: string; encrypted: boolean },
  ): Promise<string> {
    const { room_id: roomId } = await this.client.createRoom({
      invite: [...invite],
      is_direct: options.direct === true,
      ...(options.name ? { name: options.name } : {}),
      initial_state: options.encrypted ? [ENCRYPTION] : [],
    });
    if (options.direct) {
      const direct: Record<string, string[]> = {};
      for (const user of invite) direct[user] = [roomId];
      await this.client.setAccountData("m.direct" as never, direct as never);
    }
    return roomId;
  }

  async waitForJoin(roomId: string, userId: string): Promise<void> {
    await waitFor(
      `${userId} to join ${roomId}`,
      () => this.client.getRoom(roomId)?.getMember(userId)?.membership === "join" || undefined,
      60_000,
    );
  }

  /**
   * Sends a text message (encrypted in an encrypted room); `thread`: as a reply in that thread;
   * `replyTo`: as a plain reply to that event.
   */
  async send(
    roomId: string,
    body: string,
    options: { thread?: string; mentions?: readonly string[]; replyTo?: string } = {},
  ): Promise<string> {
    const content: Record<string, unknown> = {
      msgtype: "m.text",
      body,
      "m.mentions": options.mentions ? { user_ids: [...options.mentions] } : {},
    };
    if (options.thread) {
      content["m.relates_to"] = {
        rel_type: "m.thread",
        event_id: options.thread,
        is_falling_back: true,
        "m.in_reply_to": { event_id: options.thread },
      };
    } else if (options.replyTo) {
      content["m.relates_to"] = { "m.in_reply_to": { event_id: options.replyTo } };
    }
    return this.#sendEvent(roomId, "m.room.message", content);
  }

  /** Edits a message this client sent (`m.replace`), as clients do. */
  edit(roomId: string, eventId: string, body: string): Promise<string> {
    return this.#sendEvent(roomId, "m.room.message", {
      msgtype: "m.text",
      body: `* ${body}`,
      "m.new_content": { msgtype: "m.text", body },
      "m.relates_to": { rel_type: "m.replace", event_id: eventId },
    });
  }

  /** Reacts to an event (an `m.annotation`; encrypted in an encrypted room). */
  react(roomId: string, eventId: string, key: string): Promise<string> {
    return this.#sendEvent(roomId, "m.reaction", {
      "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key },
    });
  }

  async #sendEvent(roomId: string, type: string, content: Record<string, unknown>): Promise<string> {
    const { event_id } = await this.client.sendEvent(roomId, type as never, content as never);
    return event_id;
  }

  /** Whether this client saw `userId` start typing in the room (at or after `since`, epoch ms). */
  sawTyping(roomId: string, userId: string, since = 0): boolean {
    return (this.#typing.get(roomId) ?? []).some((entry) => entry.userId === userId && entry.at >= since);
  }

  /**
   * The event `userId`'s read receipt in the room points at, as this client has it: a receipt the
   * user sent (not the one clients make up for a user's own messages).
   */
  readUpTo(roomId: string, userId: string): string | null {
    return this.client.getRoom(roomId)?.getEventReadUpTo(userId, true) ?? null;
  }

  /**
   * What a client that renders edits shows for `message`: the latest `m.replace` from its sender,
   * or the message itself.
   */
  async shown(roomId: string, message: SeenEvent): Promise<string> {
    const edits = (await this.seen(roomId)).filter(
      (event) =>
        event.sender === message.sender &&
        (event.content["m.relates_to"] as { rel_type?: string; event_id?: string } | undefined)?.rel_type ===
          "m.replace" &&
        (event.content["m.relates_to"] as { event_id?: string }).event_id === message.eventId,
    );
    const latest = edits.at(-1)?.content["m.new_content"] as { body?: unknown } | undefined;
    return String(latest?.body ?? message.content.body);
  }

  /** Every event this client saw in the room, decrypted where it could. */
  async seen(roomId: string): Promise<SeenEvent[]> {
    const events = this.#events.get(roomId) ?? [];
    const out: SeenEvent[] = [];
    for (const event of events) {
      await this.client.decryptEventIfNeeded(event);
      out.push({
        eventId: event.getId() ?? "",
        sender: event.getSender() ?? "",
        wireType: event.getWireType(),
        type: event.getType(),
        content: event.getContent() as Record<string, unknown>,
        decryptionFailed: event.isDecryptionFailure(),
      });
    }
    return out;
  }

  /** Waits for a decrypted message from `sender` whose body matches. */
  async waitForMessage(roomId: string, sender: string, body: RegExp, timeoutMs = 60_000): Promise<SeenEvent> {
    return waitFor(
      `a message from ${sender} matching ${body} in ${roomId}`,
      async () =>
        (await this.seen(roomId)).find(
          (event) =>
            event.sender === sender &&
            event.type === "m.room.message" &&
            typeof event.content.body === "string" &&
            body.test(event.content.body),
        ),
      timeoutMs,
    );
  }

  /**
   * From now on the room keys (and every other to-device message) this client sends to `userId`'s
   * devices are held back: the homeserver never sees them, while this client believes them sent.
   */
  holdToDeviceFor(userId: string): void {
    this.#holdFor.add(userId);
  }

  /** Stops holding; with `deliver`, what was held is sent now (late), else it is dropped for good. */
  async endHold(options: { deliver: boolean }): Promise<number> {
    this.#holdFor.clear();
    const held = this.#held.splice(0);
    if (!options.deliver) return held.length;
    for (const [index, { eventType, messages }] of held.entries()) {
      const path = `/_matrix/client/v3/sendToDevice/${encodeURIComponent(eventType)}/late-${Date.now()}-${index}`;
      const response = await fetch(`${this.#baseUrl}${path}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${this.#user.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ messages }),
      });
      if (!response.ok)
        throw new Error(`late to-device send: HTTP ${response.status} ${await response.text()}`);
    }
    return held.length;
  }

  /** The SDK's HTTP: a to-device send drops (and keeps) the messages for held users. */
  #fetch(resource: URL | Request | string, init?: RequestInit): Promise<Response> {
    const url = new URL(resource instanceof Request ? resource.url : String(resource));
    const match = /\/sendToDevice\/([^/]+)\//.exec(url.pathname);
    if (!match?.[1] || init?.method !== "PUT" || typeof init.body !== "string" || this.#holdFor.size === 0)
      return fetch(resource, init);
    const body = JSON.parse(init.body) as { messages: Record<string, Record<string, unknown>> };
    const held: Record<string, Record<string, unknown>> = {};
    for (const userId of this.#holdFor) {
      const forUser = body.messages[userId];
      if (forUser === undefined) continue;
      held[userId] = forUser;
      delete body.messages[userId];
    }
    if (Object.keys(held).length > 0)
      this.#held.push({ eventType: decodeURIComponent(match[1]), messages: held });
    return fetch(resource, { ...init, body: JSON.stringify(body) });
  }

  stop(): void {
    this.client.stopClient();
  }
}
