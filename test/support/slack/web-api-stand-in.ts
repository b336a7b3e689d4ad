import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { validateManifest } from "./manifest-validation.ts";
import { MESSAGE_METHODS, streamingMethods } from "./streaming-methods.ts";
import {
  ALICE,
  ALL_SCOPES,
  authorshipOf,
  BOT_ID,
  BOT_NAME,
  BOT_USER_ID,
  type SlackFile,
  type StoredMessage,
  TEAM_ID,
  type WorkspaceState,
} from "./workspace-state.ts";

export const BOT_TOKEN = "xoxb-stand-in-bot-token";
export const APP_TOKEN = "xapp-stand-in-app-token";
/** An app configuration token (Your Apps → Your App Configuration Tokens): the apps.manifest.* methods take it. */
export const CONFIG_TOKEN = "xoxe.xoxp-stand-in-config-token";

type Args = Record<string, unknown>;
type Reply = Record<string, unknown> & { ok: boolean };
type Method = (args: Args, token: string | undefined) => Reply | Promise<Reply>;

export interface WebApiStandInOptions {
  readonly state: WorkspaceState;
  /** Scopes reported in `x-oauth-scopes`. */
  readonly scopes?: readonly string[];
  /** Channels where assistant.threads.setStatus is allowed (Slack allows it in assistant threads; here: DMs). */
  readonly statusAllowed?: (channel: string) => boolean;
  /** The Socket Mode URL apps.connections.open hands out. */
  readonly socketUrl?: () => string;
  /** Sees every message the bot posts (to echo it back as an event, as Slack does). */
  readonly onBotMessage?: (message: StoredMessage) => void;
  /** Whether chat.startStream is offered to the app (default yes). */
  readonly streaming?: boolean;
}

const fail = (error: string): Reply => ({ ok: false, error });

/** One Web API call after Slack has acted on it (the message is stored), before the app hears back. */
export interface AnsweredCall {
  readonly method: string;
  readonly args: Record<string, unknown>;
  readonly reply: Record<string, unknown> & { ok: boolean };
}

/**
 * Decides whether the app hears back now: undefined → at once; a promise → when it settles. Crash
 * tests hold the response to a chosen post, so a kill lands after Slack recorded it but before the
 * app learned that it did.
 */
export type ResponseGate = (call: AnsweredCall) => Promise<void> | undefined;
const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * A local stand-in for the parts of the Slack Web API the adapter uses, shaped like the real
 * responses the SDK parses: form-encoded (or JSON) requests, `{ ok, error }` replies, Bearer tokens,
 * `x-oauth-scopes` headers. Messages, reactions, statuses and ephemeral replies land in the state.
 */
export class WebApiStandIn {
  readonly #options: WebApiStandInOptions;
  readonly #server: Server;
  #url = "";
  readonly #methods: Record<string, Method>;
  readonly streams: ReturnType<typeof streamingMethods>;
  responseGate: ResponseGate | undefined;
  /**
   * Methods Slack answers with HTTP 429 and a Retry-After (seconds), as it does past a method's rate
   * tier, for the next `times` calls (Infinity: until the entry is deleted).
   */
  readonly rateLimits = new Map<string, { retryAfterSeconds: number; times: number }>();
  /**
   * Web API calls Slack acts on and then never answers: the connection is cut instead of the
   * response (true for the calls to cut).
   */
  cutAfterActing: ((method: string) => boolean) | undefined;
  /** Runs before a Web API call acts (crash tests hold a call here: Slack has not acted yet). */
  requestGate: ((method: string, args: Record<string, unknown>) => Promise<void> | undefined) | undefined;
  /** Uploads started with files.getUploadURLExternal: file id → name, declared length, bytes once sent. */
  readonly uploads = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  /** Bytes of files served at url_private_download, and how often each was fetched. */
  readonly fileDownloads = new Map<string, number>();

  constructor(options: WebApiStandInOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    this.streams = streamingMethods({
      state: options.state,
      scopes: () => options.scopes ?? ALL_SCOPES,
      streamingAllowed: () => options.streaming !== false,
      ...(options.onBotMessage ? { onBotMessage: options.onBotMessage } : {}),
    });
    this.#methods = this.#buildMethods();
  }

  get state(): WorkspaceState {
    return this.#options.state;
  }

  /** What `slackApiUrl` points at. */
  get apiUrl(): string {
    return `${this.#url}/api/`;
  }

  /** Stores a file someone shares and returns it as Slack describes it in the message. */
  shareFile(file: { name: string; bytes: Buffer; mimetype?: string; subtype?: string }): SlackFile {
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    this.state.fileBytes.set(id, file.bytes);
    return {
      id,
      name: file.name,
      mimetype: file.mimetype ?? "application/octet-stream",
      size: file.bytes.byteLength,
      url_private_download: `${this.#url}/files-pri/${TEAM_ID}-${id}/download/${encodeURIComponent(file.name)}`,
      ...(file.subtype ? { subtype: file.subtype } : {}),
    };
  }

  /** A response_url for one slash command invocation. */
  responseUrl(id: string, channel: string, user: string): string {
    return `${this.#url}/response/${encodeURIComponent(id)}?channel=${channel}&user=${user}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", this.#url);
    if (url.pathname.startsWith("/files-pri/")) {
      this.#serveFile(request, response, url);
      return;
    }
    if (url.pathname.startsWith("/upload/")) {
      const upload = this.uploads.get(url.pathname.slice("/upload/".length));
      if (!upload) {
        response.writeHead(404).end();
        return;
      }
      upload.bytes = Buffer.concat(chunks);
      response.writeHead(200, { "content-type": "text/plain" }).end("OK - 0");
      return;
    }
    if (url.pathname.startsWith("/response/")) {
      const body = JSON.parse(raw) as Args;
      this.state.ephemeral.push({
        channel: url.searchParams.get("channel") ?? "",
        user: url.searchParams.get("user") ?? "",
        text: text(body.text) ?? "",
        via: "response_url",
      });
      response.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    const method = url.pathname.replace(/^\/api\//, "");
    const args = parseArgs(raw, request.headers["content-type"]);
    this.state.calls.push({ method, args });
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const token = bearer ?? text(args.token);
    const limited = this.rateLimits.get(method);
    if (limited && limited.times > 0) {
      limited.times -= 1;
      response
        .writeHead(429, {
          "content-type": "application/json; charset=utf-8",
          "retry-after": String(limited.retryAfterSeconds),
        })
        .end(JSON.stringify({ ok: false, error: "ratelimited" }));
      return;
    }
    if (MESSAGE_METHODS.has(method)) this.streams.messageRate.take(text(args.channel) ?? "");
    await this.requestGate?.(method, args);
    const handler = this.#methods[method];
    const reply = handler ? await handler(args, token) : fail("unknown_method");
    await this.responseGate?.({ method, args, reply });
    if (this.cutAfterActing?.(method)) {
      request.socket.destroy();
      return;
    }
    response
      .writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "x-oauth-scopes": (this.#options.scopes ?? ALL_SCOPES).join(","),
      })
      .end(JSON.stringify(reply));
  }

  /** url_private_download: the bot token and the files:read scope, as Slack asks. */
  #serveFile(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const id = /^\/files-pri\/[^-/]+-([^/]+)\//.exec(url.pathname)?.[1] ?? "";
    const bytes = this.state.fileBytes.get(id);
    this.fileDownloads.set(id, (this.fileDownloads.get(id) ?? 0) + 1);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const scopes = this.#options.scopes ?? ALL_SCOPES;
    if (token !== BOT_TOKEN || !scopes.includes("files:read")) {
      response.writeHead(403, { "content-type": "text/plain" }).end("forbidden");
      return;
    }
    if (!bytes) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": bytes.byteLength,
    });
    response.end(bytes);
  }

  #buildMethods(): Record<string, Method> {
    const state = this.state;
    const asBot =
      (method: (args: Args) => Reply): Method =>
      (args, token) =>
        token === BOT_TOKEN ? method(args) : fail(token ? "invalid_auth" : "not_authed");
    const memberChannel = (id: unknown): Reply | undefined => {
      const channel = state.channels.get(text(id) ?? "");
      if (!channel) return fail("channel_not_found");
      if (!channel.botIsMember) return fail("not_in_channel");
      return undefined;
    };
    return {
      // Other Slack libraries look up the people they see (names for mentions); Slack answers with a profile.
      "users.info": asBot((args) => {
        if (!(this.#options.scopes ?? ALL_SCOPES).includes("users:read")) return fail("missing_scope");
        const id = text(args.user) ?? "";
        const name = id === BOT_USER_ID ? BOT_NAME : id.toLowerCase();
        return {
          ok: true,
          user: {
            id,
            name,
            real_name: name,
            is_bot: id === BOT_USER_ID,
            profile: { display_name: name, real_name: name },
            ...(state.timeZones.has(id) ? { tz: state.timeZones.get(id) } : {}),
          },
        };
      }),
      "auth.test": asBot(() => ({
        ok: true,
        url: "https://switchboard-test.slack.com/",
        team: "Switchboard Test",
        user: BOT_NAME,
        team_id: TEAM_ID,
        user_id: BOT_USER_ID,
        bot_id: BOT_ID,
        is_enterprise_install: false,
      })),
      "chat.postMessage": asBot((args) => {
        const refused = memberChannel(args.channel);
        if (refused) return refused;
        const channel = text(args.channel) ?? "";
        const body = text(args.text) ?? "";
        if (body.length > 40_000) return fail("msg_too_long");
        const threadTs = text(args.thread_ts);
        if (threadTs && !state.find(channel, threadTs)) return fail("thread_not_found");
        const metadata = typeof args.metadata === "string" ? JSON.parse(args.metadata) : args.metadata;
        const blocks = blocksOf(args.blocks);
        if (blocks === "invalid") return fail("invalid_blocks");
        const stored = state.add({
          ...(blocks ? { blocks } : {}),
          ...authorshipOf(args, this.#options.scopes ?? ALL_SCOPES),
          channel,
          text: body,
          user: BOT_USER_ID,
          bot_id: BOT_ID,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(metadata ? { metadata } : {}),
        });
        this.#options.onBotMessage?.(stored);
        return {
          ok: true,
          channel,
          ts: stored.ts,
          message: { type: "message", user: BOT_USER_ID, bot_id: BOT_ID, text: body, ts: stored.ts },
        };
      }),
      ...Object.fromEntries(
        Object.entries(this.streams.methods).map(([name, method]) => [name, asBot(method)]),
      ),
      "files.getUploadURLExternal": asBot((args) => {
        const filename = text(args.filename);
        const length = Number(args.length);
        if (!filename || !Number.isFinite(length) || length <= 0) return fail("invalid_arguments");
        const fileId = `F${randomBytes(5).toString("hex").toUpperCase()}`;
        this.uploads.set(fileId, { filename, length });
        return { ok: true, upload_url: `${this.#url}/upload/${fileId}`, file_id: fileId };
      }),
      "files.completeUploadExternal": asBot((args) => {
        const files = (typeof args.files === "string" ? JSON.parse(args.files) : args.files) as {
          id: string;
          title?: string;
        }[];
        const channel = text(args.channel_id) ?? "";
        const refused = memberChannel(channel);
        if (refused) return refused;
        const threadTs = text(args.thread_ts);
        const shared: SlackFile[] = [];
        for (const file of files) {
          const upload = this.uploads.get(file.id);
          if (!upload?.bytes) return fail("file_not_found");
          if (upload.bytes.byteLength !== upload.length) return fail("file_size_mismatch");
          state.fileBytes.set(file.id, upload.bytes);
          shared.push({
            id: file.id,
            name: upload.filename,
            mimetype: "application/octet-stream",
            size: upload.length,
            url_private_download: `${this.#url}/files-pri/${TEAM_ID}-${file.id}/download/${upload.filename}`,
          });
        }
        const stored = state.add({
          channel,
          text: "",
          user: BOT_USER_ID,
          bot_id: BOT_ID,
          subtype: "file_share",
          files: shared,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        });
        return {
          ok: true,
          files: shared.map((file) => ({
            id: file.id,
            title: file.name,
            shares: {
              public: { [channel]: [{ ts: stored.ts, ...(threadTs ? { thread_ts: threadTs } : {}) }] },
            },
          })),
        };
      }),
      "chat.update": asBot((args) => {
        const message = state.find(text(args.channel) ?? "", text(args.ts) ?? "");
        if (!message) return fail("message_not_found");
        if (!this.streams.updatable(args)) return fail("message_is_streaming");
        if (message.bot_id !== BOT_ID) return fail("cant_update_message");
        const blocks = blocksOf(args.blocks);
        if (blocks === "invalid") return fail("invalid_blocks");
        // chat.update replaces the layout too: an update without blocks leaves plain text.
        if (blocks) message.blocks = blocks;
        else delete message.blocks;
        message.text = text(args.text) ?? "";
        // An update carries its own authorship: left out, the message shows the app's name again.
        const { username, icons } = authorshipOf(args, this.#options.scopes ?? ALL_SCOPES);
        if (username) message.username = username;
        else delete message.username;
        if (icons) message.icons = icons;
        else delete message.icons;
        message.edited = { user: BOT_USER_ID, ts: state.nextTs() };
        return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
      }),
      "chat.postEphemeral": asBot((args) => {
        const refused = memberChannel(args.channel);
        if (refused) return refused;
        const messageTs = state.nextTs();
        const blocks = blocksOf(args.blocks);
        if (blocks === "invalid") return fail("invalid_blocks");
        state.ephemeral.push({
          ...(blocks ? { blocks } : {}),
          channel: text(args.channel) ?? "",
          user: text(args.user) ?? "",
          text: text(args.text) ?? "",
          via: "chat.postEphemeral",
          message_ts: messageTs,
        });
        return { ok: true, message_ts: messageTs };
      }),
      "reactions.add": asBot((args) => {
        const message = state.find(text(args.channel) ?? "", text(args.timestamp) ?? "");
        if (!message) return fail("message_not_found");
        const name = text(args.name) ?? "";
        const users = message.reactions.get(name) ?? new Set<string>();
        if (users.has(BOT_USER_ID)) return fail("already_reacted");
        message.reactions.set(name, users.add(BOT_USER_ID));
        return { ok: true };
      }),
      "reactions.remove": asBot((args) => {
        const message = state.find(text(args.channel) ?? "", text(args.timestamp) ?? "");
        if (!message) return fail("message_not_found");
        const users = message.reactions.get(text(args.name) ?? "");
        if (!users?.delete(BOT_USER_ID)) return fail("no_reaction");
        return { ok: true };
      }),
      "assistant.threads.setStatus": asBot((args) => {
        const channel = text(args.channel_id) ?? "";
        const threadTs = text(args.thread_ts) ?? "";
        const allowed =
          this.#options.statusAllowed ?? ((id: string) => state.channels.get(id)?.type === "im");
        if (!allowed(channel)) return fail("feature_not_enabled");
        if (!state.find(channel, threadTs)) return fail("invalid_thread_ts");
        state.statuses.push({ channel, threadTs, status: text(args.status) ?? "" });
        return { ok: true };
      }),
      "conversations.info": asBot((args) => {
        const channel = state.channels.get(text(args.channel) ?? "");
        if (!channel) return fail("channel_not_found");
        const needed = channel.type === "im" ? "im:read" : "channels:read";
        if (!(this.#options.scopes ?? ALL_SCOPES).includes(needed)) return fail("missing_scope");
        return channel.type === "im"
          ? { ok: true, channel: { id: channel.id, is_im: true, user: ALICE } }
          : { ok: true, channel: { id: channel.id, name: channel.name, is_channel: true, is_im: false } };
      }),
      "conversations.replies": asBot((args) => {
        const channel = text(args.channel) ?? "";
        const thread = state.thread(channel, text(args.ts) ?? "");
        if (thread.length === 0) return fail("thread_not_found");
        const messages = thread.map(({ reactions, ...message }) => ({
          type: "message",
          ...message,
          ...(reactions.size > 0
            ? {
                reactions: [...reactions].map(([name, users]) => ({
                  name,
                  users: [...users],
                  count: users.size,
                })),
              }
            : {}),
        }));
        return { ok: true, messages, has_more: false };
      }),
      // Checks a manifest as Slack does before creating an app from it (rules: manifest-validation.ts).
      "apps.manifest.validate": (args, token) => {
        if (token !== CONFIG_TOKEN) return fail(token ? "invalid_auth" : "not_authed");
        let manifest: unknown;
        try {
          manifest = typeof args.manifest === "string" ? JSON.parse(args.manifest) : args.manifest;
        } catch {
          return fail("invalid_manifest");
        }
        const errors = validateManifest(manifest);
        return errors.length === 0 ? { ok: true } : { ok: false, error: "invalid_manifest", errors };
      },
      "apps.connections.open": (_args, token) => {
        if (token !== APP_TOKEN)
          return fail(token?.startsWith("xoxb-") ? "not_allowed_token_type" : "invalid_auth");
        const socketUrl = this.#options.socketUrl?.();
        return socketUrl ? { ok: true, url: socketUrl } : fail("socket_mode_not_enabled");
      },
    };
  }
}

/**
 * Blocks as Slack checks them before posting: an array of typed blocks, section text within 3,000
 * characters, at most 25 elements per actions block with unique action ids, button values within 2,000.
 */
function blocksOf(value: unknown): Record<string, unknown>[] | undefined | "invalid" {
  if (value === undefined) return undefined;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  if (!Array.isArray(parsed) || parsed.length > 50) return "invalid";
  for (const block of parsed as Record<string, unknown>[]) {
    if (typeof block?.type !== "string") return "invalid";
    const sectionText = (block.text as { text?: unknown } | undefined)?.text;
    if (block.type === "section" && (typeof sectionText !== "string" || sectionText.length > 3_000))
      return "invalid";
    if (block.type === "actions") {
      const elements = block.elements as Record<string, unknown>[] | undefined;
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return "invalid";
      const ids = elements.map((element) => element.action_id);
      if (new Set(ids).size !== ids.length) return "invalid";
      if (elements.some((element) => typeof element.value === "string" && element.value.length > 2_000))
        return "invalid";
    }
  }
  return parsed as Record<string, unknown>[];
}

function parseArgs(raw: string, contentType: string | undefined): Args {
  if (raw === "") return {};
  if (contentType?.startsWith("application/json")) return JSON.parse(raw) as Args;
  return Object.fromEntries(new URLSearchParams(raw));
}
