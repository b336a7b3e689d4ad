import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RateWindow } from "../rate-window.ts";
import { HomeserverState, parseToken, type RoomEvent, SERVER_NAME } from "./homeserver-state.ts";
import { HttpError } from "./http-error.ts";

/** What the stand-in does to the next send request, to show how the bot copes. */
export type SendFault =
  | { readonly kind: "rate-limit"; readonly retryAfterMs: number }
  /** Stores the event, then answers 502 as a proxy losing the response would. */
  | { readonly kind: "lost-response" };

export interface SendAttempt {
  readonly roomId: string;
  readonly type: string;
  readonly txnId: string;
  readonly status: number;
}

const EVENT_SIZE_LIMIT = 65_536;

/**
 * A local stand-in for the client-server API endpoints matrix-bot-sdk calls: whoami, login,
 * joined_rooms, account data, filters, sync (with `since`, long-poll and `limited`), messages,
 * join/leave, send (with transaction ids), typing, event fetch, state, members and profiles.
 * It records what the bot did and lets a test act as users.
 */
export class FakeHomeserver {
  readonly state = new HomeserverState();
  readonly requests: string[] = [];
  readonly unrecognized: string[] = [];
  readonly sendAttempts: SendAttempt[] = [];
  readonly typing: { roomId: string; typing: boolean }[] = [];
  readonly logins: string[] = [];
  /** Read receipts users sent, in order (`thread_id` as given, absent for an unthreaded receipt). */
  readonly receipts: { user: string; roomId: string; type: string; eventId: string; threadId?: string }[] =
    [];
  /** Messages (edits included) one user may send into one room: 5 per 10 s, as a homeserver's rc_message. */
  readonly messageRate = new RateWindow(5, 10_000);
  /** Cap on timeline length per room in /sync, whatever the filter asks (Synapse caps too). */
  timelineLimit = 50;
  /**
   * A homeserver from before Matrix 1.11: no authenticated media endpoints (404 M_UNRECOGNIZED,
   * versions up to v1.5), files served at the legacy `/_matrix/media/v3/download`. Otherwise the
   * legacy download is frozen (404), as on current Synapse.
   */
  legacyMediaOnly = false;
  /** The media repository: `mxc://<server>/<id>` → bytes, type, name. */
  readonly media = new Map<string, { bytes: Buffer; contentType: string; filename?: string }>();
  /** Every media download: which endpoint, whether it carried an access token. */
  readonly mediaDownloads: { endpoint: "v1" | "legacy"; mediaId: string; authorized: boolean }[] = [];
  readonly #server: Server;
  readonly #tokens = new Map<string, string>();
  readonly #passwords = new Map<string, string>();
  readonly #filters = new Map<string, Record<string, unknown>>();
  readonly #transactions = new Map<string, string>();
  readonly #faults: SendFault[] = [];
  #closing = false;
  url = "";

  private constructor() {
    this.#server = createServer((request, response) => {
      this.#serve(request, response).catch((error: unknown) => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ errcode: "M_UNKNOWN", error: String(error) }));
      });
    });
  }

  static async start(): Promise<FakeHomeserver> {
    const homeserver = new FakeHomeserver();
    await new Promise<void>((resolve) => homeserver.#server.listen(0, "127.0.0.1", resolve));
    homeserver.url = `http://127.0.0.1:${(homeserver.#server.address() as AddressInfo).port}`;
    return homeserver;
  }

  registerUser(
    localpart: string,
    options: { displayName?: string; token?: string; password?: string } = {},
  ): string {
    const userId = `@${localpart}:${SERVER_NAME}`;
    if (options.displayName) this.state.displayNames.set(userId, options.displayName);
    if (options.token) this.#tokens.set(options.token, userId);
    if (options.password) this.#passwords.set(userId, options.password);
    return userId;
  }

  revokeTokens(userId: string): void {
    for (const [token, owner] of this.#tokens) if (owner === userId) this.#tokens.delete(token);
  }

  /** A user's message (or any room event); returns its event id. */
  userSends(
    roomId: string,
    sender: string,
    content: Record<string, unknown>,
    type = "m.room.message",
  ): string {
    return this.state.append(roomId, { type, sender, content }).event.event_id;
  }

  /** A user reacts to an event (an `m.annotation`); refused like Synapse when they already reacted so. */
  userReacts(roomId: string, sender: string, eventId: string, key: string): string {
    this.#refuseDuplicateAnnotation(roomId, sender, "m.reaction", {
      "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key },
    });
    return this.userSends(
      roomId,
      sender,
      { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } },
      "m.reaction",
    );
  }

  /** Synapse: one reaction per person, key and event (400 M_DUPLICATE_ANNOTATION). */
  #refuseDuplicateAnnotation(roomId: string, sender: string, type: string, content: Record<string, unknown>) {
    if (type !== "m.reaction") return;
    const relates = content["m.relates_to"] as { event_id?: string; key?: string } | undefined;
    const duplicate = this.state.room(roomId).events.some(({ event }) => {
      const other = event.content["m.relates_to"] as { event_id?: string; key?: string } | undefined;
      return (
        event.type === "m.reaction" &&
        event.sender === sender &&
        other?.event_id === relates?.event_id &&
        other?.key === relates?.key
      );
    });
    if (duplicate) throw new HttpError(400, "M_DUPLICATE_ANNOTATION", "Can't send same reaction twice");
  }

  invite(roomId: string, inviter: string, invitee: string, options: { isDirect?: boolean } = {}): void {
    this.state.setMembership(roomId, invitee, "invite", inviter, options.isDirect ? { is_direct: true } : {});
  }

  failNextSend(fault: SendFault): void {
    this.#faults.push(fault);
  }

  /** Events the given user posted, in order. */
  eventsFrom(userId: string, type = "m.room.message"): RoomEvent[] {
    return [...this.state.rooms.values()]
      .flatMap((room) => room.events)
      .sort((a, b) => a.pos - b.pos)
      .map((stored) => stored.event)
      .filter(
        (event, index, all) => event.sender === userId && event.type === type && all.indexOf(event) === index,
      );
  }

  async close(): Promise<void> {
    this.#closing = true;
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  /** A file a user uploads (what a client does before sending m.image / m.file). */
  uploadMedia(bytes: Buffer, contentType: string, filename?: string): string {
    const id = `m${this.media.size + 1}${Date.now().toString(36)}`;
    this.media.set(id, { bytes, contentType, ...(filename ? { filename } : {}) });
    return `mxc://${SERVER_NAME}/${id}`;
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.url);
    const method = request.method ?? "GET";
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (url.pathname.startsWith("/_matrix/media/") || url.pathname.startsWith("/_matrix/client/v1/media/")) {
      this.requests.push(`${method} ${url.pathname}`);
      this.#serveMedia(method, url, Buffer.concat(chunks), request, response);
      return;
    }
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
    const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    this.requests.push(`${method} ${url.pathname}`);
    const reply = (status: number, payload: unknown) => {
      const text = typeof payload === "string";
      response.writeHead(status, { "content-type": text ? "text/plain" : "application/json" });
      response.end(text ? payload : JSON.stringify(payload));
    };
    try {
      reply(200, await this.#route(method, segments, url.searchParams, body, request));
    } catch (error) {
      if (error instanceof HttpError) reply(error.status, error.body);
      else if (error instanceof Error && "status" in error && typeof error.status === "number") {
        reply(error.status, { errcode: "M_NOT_FOUND", error: error.message });
      } else throw error;
    }
  }

  /** Upload, and download through the authenticated (v1) or legacy endpoints. */
  #serveMedia(
    method: string,
    url: URL,
    body: Buffer,
    request: IncomingMessage,
    response: ServerResponse,
  ): void {
    const answer = this.#mediaAnswer(method, url, body, request);
    if ("bytes" in answer) {
      response.writeHead(200, {
        "content-type": answer.contentType,
        "content-length": String(answer.bytes.byteLength),
      });
      response.end(answer.bytes);
      return;
    }
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.json));
  }

  #mediaAnswer(
    method: string,
    url: URL,
    body: Buffer,
    request: IncomingMessage,
  ): { status: number; json: unknown } | { bytes: Buffer; contentType: string } {
    const fail = (status: number, errcode: string, error: string) => ({ status, json: { errcode, error } });
    let authorized = true;
    try {
      this.#user(request);
    } catch {
      authorized = false;
    }
    if (method === "POST" && url.pathname === "/_matrix/media/v3/upload") {
      if (!authorized) return fail(401, "M_MISSING_TOKEN", "Missing access token");
      const filename = url.searchParams.get("filename") ?? undefined;
      const type = request.headers["content-type"] ?? "application/octet-stream";
      return { status: 200, json: { content_uri: this.uploadMedia(body, type, filename) } };
    }
    const download = /^\/_matrix\/(client\/v1\/media|media\/v3)\/download\/([^/]+)\/([^/]+)/.exec(
      url.pathname,
    );
    if (method !== "GET" || !download) return fail(404, "M_UNRECOGNIZED", "Unrecognized request");
    const endpoint = download[1] === "media/v3" ? "legacy" : "v1";
    const mediaId = decodeURIComponent(download[3] ?? "");
    this.mediaDownloads.push({ endpoint, mediaId, authorized });
    if (endpoint === "v1" && this.legacyMediaOnly) return fail(404, "M_UNRECOGNIZED", "Unrecognized request");
    if (endpoint === "legacy" && !this.legacyMediaOnly) return fail(404, "M_NOT_FOUND", "Not found");
    if (endpoint === "v1" && !authorized) return fail(401, "M_MISSING_TOKEN", "Missing access token");
    const stored = this.media.get(mediaId);
    if (decodeURIComponent(download[2] ?? "") !== SERVER_NAME || !stored)
      return fail(404, "M_NOT_FOUND", "Not found");
    return { bytes: stored.bytes, contentType: stored.contentType };
  }

  #user(request: IncomingMessage): string {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const user = token === undefined ? undefined : this.#tokens.get(token);
    if (!user) throw new HttpError(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.");
    return user;
  }

  async #route(
    method: string,
    path: string[],
    query: URLSearchParams,
    body: Record<string, unknown>,
    request: IncomingMessage,
  ): Promise<unknown> {
    const [prefix, api, version, ...rest] = path;
    if (prefix !== "_matrix" || api !== "client")
      throw new HttpError(404, "M_UNRECOGNIZED", "Unrecognized request");
    if (version === "versions") return { versions: this.legacyMediaOnly ? ["v1.4", "v1.5"] : ["v1.11"] };
    const route = `${method} ${rest.map((part, i) => (["rooms", "user", "profile", "join"].includes(rest[i - 1] ?? "") ? ":id" : part)).join("/")}`;

    if (route === "POST login") return this.#login(body);
    if (route === "GET profile/:id") {
      const name = this.state.displayNames.get(rest[1] ?? "");
      if (name === undefined) throw new HttpError(404, "M_NOT_FOUND", "Profile not found");
      return { displayname: name };
    }
    const user = this.#user(request);
    const roomId = rest[1] ?? "";
    switch (route) {
      case "GET account/whoami":
        return { user_id: user, device_id: "BOTDEVICE" };
      case "GET joined_rooms":
        return { joined_rooms: this.state.joinedRooms(user) };
      case `GET user/:id/account_data/${rest[3]}`: {
        const value = this.state.accountData.get(user)?.get(rest[3] ?? "");
        if (value === undefined) throw new HttpError(404, "M_NOT_FOUND", "Account data not found");
        return value;
      }
      case `PUT user/:id/account_data/${rest[3]}`: {
        const data = this.state.accountData.get(user) ?? new Map<string, unknown>();
        data.set(rest[3] ?? "", body);
        this.state.accountData.set(user, data);
        return {};
      }
      case "POST user/:id/filter": {
        const id = String(this.#filters.size + 1);
        this.#filters.set(id, body);
        return { filter_id: id };
      }
      case "GET sync":
        return this.#sync(user, query);
      case "POST join/:id":
      case "POST rooms/:id/join":
        return this.#join(user, roomId);
      case "POST rooms/:id/leave":
        this.state.setMembership(
          roomId,
          user,
          "leave",
          user,
          typeof body === "object" && body !== null && "reason" in body && typeof body.reason === "string"
            ? { reason: body.reason }
            : {},
        );
        return {};
      case "GET rooms/:id/joined_members":
        return {
          joined: Object.fromEntries(
            [...this.state.room(roomId).members]
              .filter(([, m]) => m.membership === "join")
              .map(([id]) => [id, {}]),
          ),
        };
      case "GET rooms/:id/messages": {
        const from = parseToken(query.get("from")) ?? this.state.position;
        if (query.get("dir") !== "b")
          throw new HttpError(400, "M_INVALID_PARAM", "only dir=b is supported here");
        return this.state.messagesBackwards(
          roomId,
          from,
          parseToken(query.get("to")),
          Number(query.get("limit") ?? 10),
        );
      }
      case `GET rooms/:id/event/${rest[3]}`: {
        const found = this.state.room(roomId).events.find((stored) => stored.event.event_id === rest[3]);
        if (!found) throw new HttpError(404, "M_NOT_FOUND", "Event not found");
        return found.event;
      }
      case `PUT rooms/:id/typing/${rest[3]}`:
        this.typing.push({ roomId, typing: body.typing === true });
        return {};
      case `POST rooms/:id/receipt/${rest[3]}/${rest[4]}`: {
        if (!this.state.room(roomId).events.some((stored) => stored.event.event_id === rest[4]))
          throw new HttpError(404, "M_NOT_FOUND", "Event not found");
        const threadId = typeof body.thread_id === "string" ? body.thread_id : undefined;
        this.receipts.push({
          user,
          roomId,
          type: rest[3] ?? "",
          eventId: rest[4] ?? "",
          ...(threadId ? { threadId } : {}),
        });
        return {};
      }
      case `PUT rooms/:id/send/${rest[3]}/${rest[4]}`:
        return this.#send(request, user, roomId, rest[3] ?? "", rest[4] ?? "", body);
    }
    if (rest[0] === "rooms" && rest[2] === "state" && rest[3] === "m.room.member" && rest[4]) {
      return this.#memberState(method, user, roomId, rest[4], body);
    }
    if (method === "GET" && rest[0] === "rooms" && rest[2] === "state") {
      const room = this.state.room(roomId);
      if (rest[3] === "m.room.encryption" && room.encrypted) return { algorithm: "m.megolm.v1.aes-sha2" };
      if (rest[3] === "m.room.name" && room.name !== undefined) return { name: room.name };
      throw new HttpError(404, "M_NOT_FOUND", "Event not found");
    }
    this.unrecognized.push(`${method} /${path.join("/")}`);
    throw new HttpError(404, "M_UNRECOGNIZED", "Unrecognized request");
  }

  #login(body: Record<string, unknown>): unknown {
    const identifier = body.identifier as { user?: string } | undefined;
    const user = identifier?.user ?? "";
    const userId = user.startsWith("@") ? user : `@${user}:${SERVER_NAME}`;
    if (body.type !== "m.login.password" || this.#passwords.get(userId) !== body.password) {
      throw new HttpError(403, "M_FORBIDDEN", "Invalid username or password");
    }
    const token = `login-token-${this.logins.length + 1}`;
    this.logins.push(userId);
    this.#tokens.set(token, userId);
    return { user_id: userId, access_token: token, device_id: `DEVICE${this.logins.length}` };
  }

  async #sync(user: string, query: URLSearchParams): Promise<unknown> {
    const since = parseToken(query.get("since"));
    const filter = this.#filters.get(query.get("filter") ?? "");
    const room = filter?.room as { timeline?: { limit?: number } } | undefined;
    const limit = Math.min(room?.timeline?.limit ?? 10, this.timelineLimit);
    const deadline = Date.now() + Number(query.get("timeout") ?? 0);
    for (;;) {
      const { response, empty } = this.state.buildSync(user, since, limit);
      const left = deadline - Date.now();
      // An initial sync (no `since`) answers at once, as Synapse's does.
      if (!empty || since === null || left <= 0 || this.#closing) return response;
      await this.state.changed(Math.min(left, 200));
    }
  }

  /**
   * GET / PUT `m.room.member` state: anyone in the room reads it; a member changes only their own
   * (a per-room display name), and stays joined.
   */
  #memberState(
    method: string,
    user: string,
    roomId: string,
    stateKey: string,
    body: Record<string, unknown>,
  ): unknown {
    const room = this.state.room(roomId);
    if (room.members.get(user)?.membership !== "join")
      throw new HttpError(403, "M_FORBIDDEN", "You are not in this room.");
    if (method === "GET") {
      const latest = room.events.findLast(
        ({ event }) => event.type === "m.room.member" && event.state_key === stateKey,
      );
      if (!latest) throw new HttpError(404, "M_NOT_FOUND", "Event not found");
      return latest.event.content;
    }
    if (method !== "PUT") throw new HttpError(405, "M_UNRECOGNIZED", "Unrecognized request");
    if (stateKey !== user || body.membership !== "join")
      throw new HttpError(403, "M_FORBIDDEN", "You may only change your own membership details.");
    const { membership: _membership, ...extra } = body;
    return { event_id: this.state.setMembership(roomId, user, "join", user, extra).event.event_id };
  }

  #join(user: string, roomId: string): unknown {
    const room = this.state.room(roomId);
    if (room.members.get(user)?.membership !== "invite")
      throw new HttpError(403, "M_FORBIDDEN", "You are not invited to this room.");
    this.state.setMembership(roomId, user, "join", user);
    return { room_id: roomId };
  }

  #send(
    request: IncomingMessage,
    user: string,
    roomId: string,
    type: string,
    txnId: string,
    content: Record<string, unknown>,
  ): unknown {
    const transactionKey = `${request.headers.authorization}:${roomId}:${txnId}`;
    const fault = this.#faults.shift();
    const record = (status: number) => this.sendAttempts.push({ roomId, type, txnId, status });
    if (fault?.kind === "rate-limit") {
      record(429);
      throw new HttpError(429, "M_LIMIT_EXCEEDED", "Too Many Requests", {
        retry_after_ms: fault.retryAfterMs,
      });
    }
    const existing = this.#transactions.get(transactionKey);
    if (existing !== undefined) {
      record(200);
      return { event_id: existing };
    }
    const retryAfterMs = this.messageRate.take(`${user}|${roomId}`);
    if (retryAfterMs !== undefined) {
      record(429);
      throw new HttpError(429, "M_LIMIT_EXCEEDED", "Too Many Requests", { retry_after_ms: retryAfterMs });
    }
    if (this.state.room(roomId).members.get(user)?.membership !== "join") {
      record(403);
      throw new HttpError(403, "M_FORBIDDEN", "User not in room");
    }
    this.#refuseDuplicateAnnotation(roomId, user, type, content);
    const size = Buffer.byteLength(
      JSON.stringify({ type, sender: user, room_id: roomId, content, origin_server_ts: Date.now() }),
    );
    if (size > EVENT_SIZE_LIMIT) {
      record(413);
      throw new HttpError(413, "M_TOO_LARGE", `event is ${size} bytes, over ${EVENT_SIZE_LIMIT}`);
    }
    const eventId = this.state.append(roomId, { type, sender: user, content }).event.event_id;
    this.#transactions.set(transactionKey, eventId);
    if (fault?.kind === "lost-response") {
      record(502);
      throw HttpError.plain(502, "Bad Gateway");
    }
    record(200);
    return { event_id: eventId };
  }
}
