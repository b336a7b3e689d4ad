import type { IncomingMessage, ServerResponse } from "node:http";
import { DiscordApiError, unknownGuild } from "./api-error.ts";
import { type InteractionDesk, registerCommands } from "./interactions.ts";
import { channelPayload, guildRestPayload, messagePayload, userPayload, webhookPayload } from "./payloads.ts";
import { type DiscordWorld, GATEWAY_MESSAGE_CONTENT_LIMITED } from "./world.ts";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly at: number;
}

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  /** Interaction callbacks and webhooks authenticate by their token in the path, not the bot token. */
  readonly auth: boolean;
  handle(
    params: string[],
    body: Record<string, unknown>,
    query: URLSearchParams,
    files: UploadedFile[],
  ): unknown;
}

/** A file part of a multipart request (`files[n]`). */
export interface UploadedFile {
  readonly name: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

/** The REST API (v10) the bot calls, on the same world the gateway announces. */
export function createRestHandler(world: DiscordWorld, desk: InteractionDesk, gatewayUrl: () => string) {
  const requests: RecordedRequest[] = [];
  const route = (method: string, path: string, auth: boolean, handle: Route["handle"]): Route => ({
    method,
    pattern: new RegExp(`^/api/v10${path.replaceAll(/:\w+/g, "([^/]+)")}$`),
    auth,
    handle,
  });
  const routes: Route[] = [
    route("GET", "/gateway/bot", true, () => ({
      url: gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 60_000, max_concurrency: 1 },
    })),
    route("GET", "/users/@me", true, () => userPayload(world.bot)),
    route("GET", "/applications/@me", true, () => ({
      id: world.applicationId,
      name: "Switchboard",
      description: "",
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: "0",
      flags: world.messageContentIntentEnabled ? GATEWAY_MESSAGE_CONTENT_LIMITED : 0,
      bot: userPayload(world.bot),
    })),
    route("GET", "/guilds/:guild", true, ([id = ""]) => {
      if (id !== world.guildId) throw unknownGuild();
      return guildRestPayload(world.guildCreate());
    }),
    route("GET", "/channels/:channel", true, ([id = ""]) => channelPayload(world, world.requireChannel(id))),
    route("GET", "/channels/:channel/messages", true, ([id = ""], _body, query) => {
      const channel = world.requireChannel(id);
      const after = BigInt(query.get("after") ?? "0");
      const limit = Math.min(Number(query.get("limit") ?? 50), 100);
      // Discord answers the newest first; `after` pages forward from a snowflake.
      return [...world.messages.values()]
        .filter((message) => message.channelId === channel.id && BigInt(message.id) > after)
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .slice(0, limit)
        .reverse()
        .map((message) => messagePayload(world, message));
    }),
    route("GET", "/channels/:channel/messages/:message", true, ([channelId = "", messageId = ""]) => {
      const message = world.messages.get(messageId);
      if (!message || message.channelId !== world.requireChannel(channelId).id)
        throw new DiscordApiError(404, 10008, "Unknown Message");
      return messagePayload(world, message);
    }),
    route("POST", "/channels/:channel/messages", true, ([id = ""], body, _query, files) => {
      const posted = world.botPosts(id, body, files);
      if (files.length > 0 && world.failNextFilePost) {
        world.failNextFilePost = false;
        throw new DiscordApiError(500, 0, "500: Internal Server Error");
      }
      return messagePayload(world, posted);
    }),
    route("PATCH", "/channels/:channel/messages/:message", true, ([id = "", message = ""], body) =>
      messagePayload(world, world.botEdits(id, message, body)),
    ),
    route(
      "POST",
      "/channels/:channel/messages/:message/threads",
      true,
      ([channelId = "", messageId = ""], body) =>
        channelPayload(world, world.startThread(channelId, messageId, body)),
    ),
    route("POST", "/channels/:channel/typing", true, ([id = ""]) => {
      world.typing.push({ channelId: world.requireChannel(id).id, at: Date.now() });
      return undefined;
    }),
    route("GET", "/applications/:application/commands", true, () => desk.commands.get("global") ?? []),
    route(
      "GET",
      "/applications/:application/guilds/:guild/commands",
      true,
      ([_app = "", guild = ""]) => desk.commands.get(guild) ?? [],
    ),
    route("PUT", "/applications/:application/commands", true, ([app = ""], body) =>
      registerCommands(desk, app, "global", body),
    ),
    route("PUT", "/applications/:application/guilds/:guild/commands", true, ([app = "", guild = ""], body) =>
      registerCommands(desk, app, guild, body),
    ),
    route("POST", "/interactions/:interaction/:token/callback", false, ([id = "", token = ""], body, query) =>
      desk.callback(id, token, body, query.get("with_response") === "true"),
    ),
    route("GET", "/webhooks/:application/:token/messages/@original", false, ([app = "", token = ""]) =>
      desk.originalOf(app, token),
    ),
    route("GET", "/channels/:channel/webhooks", true, ([id = ""]) =>
      world.channelWebhooks(id).map((webhook) => webhookPayload(world, webhook)),
    ),
    route("POST", "/channels/:channel/webhooks", true, ([id = ""], body) =>
      webhookPayload(world, world.createWebhook(id, body)),
    ),
    route("GET", "/webhooks/:webhook/:token", false, ([id = "", token = ""]) => {
      const { token: _token, ...payload } = webhookPayload(world, world.webhookByToken(id, token));
      // Fetched by its token, a webhook comes back without its user.
      const { user: _user, ...rest } = payload;
      return { ...rest, token };
    }),
    // Interaction responses and channel webhooks share these paths: an interaction's "webhook" id
    // is the application's, a channel webhook's is its own.
    route(
      "PATCH",
      "/webhooks/:application/:token/messages/:message",
      false,
      ([app = "", token = "", message = ""], body, query) =>
        world.webhooks.has(app)
          ? messagePayload(
              world,
              world.editWebhookMessage(world.webhookByToken(app, token), message, body, query),
            )
          : desk.editMessage(app, token, message, body),
    ),
    route("POST", "/webhooks/:application/:token", false, ([app = "", token = ""], body, query) => {
      if (!world.webhooks.has(app)) return desk.followUp(app, token, body);
      const posted = world.executeWebhook(world.webhookByToken(app, token), body, query);
      if (world.failNextWebhookAnswer) {
        world.failNextWebhookAnswer = false;
        throw new DiscordApiError(500, 0, "500: Internal Server Error");
      }
      return query.get("wait") === "true" ? messagePayload(world, posted) : undefined;
    }),
  ];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://stand-in");
    if (request.method === "GET" && world.cdn.serve(url, request.headers.authorization, response)) return;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const { body, files } = await readBody(Buffer.concat(chunks), request.headers["content-type"]);
    // discord.js escapes `@original` as `%40original`; match on the decoded path.
    const path = decodeURIComponent(url.pathname);
    requests.push({
      method: request.method ?? "GET",
      path,
      query: url.searchParams,
      body,
      at: Date.now(),
    });
    const reply = (status: number, payload?: unknown) => {
      response.writeHead(status, payload === undefined ? {} : { "content-type": "application/json" });
      response.end(payload === undefined ? undefined : JSON.stringify(payload));
    };
    try {
      for (const candidate of routes) {
        const match = candidate.method === request.method ? candidate.pattern.exec(path) : null;
        if (!match) continue;
        if (candidate.auth) world.authorize(request.headers.authorization);
        const result = candidate.handle(match.slice(1), body, url.searchParams, files);
        reply(result === undefined ? 204 : 200, result);
        return;
      }
      reply(404, { message: "404: Not Found", code: 0 });
    } catch (error) {
      if (error instanceof DiscordApiError) reply(error.status, error.body());
      else reply(500, { message: error instanceof Error ? error.message : String(error), code: 0 });
    }
  }

  return { handle, requests };
}

/** JSON, or multipart as discord.js sends files: `payload_json` plus `files[n]` parts. */
async function readBody(
  raw: Buffer,
  contentType: string | undefined,
): Promise<{ body: Record<string, unknown>; files: UploadedFile[] }> {
  if (!contentType?.startsWith("multipart/form-data"))
    return {
      body: raw.byteLength === 0 ? {} : (JSON.parse(raw.toString("utf8")) as Record<string, unknown>),
      files: [],
    };
  const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
  const json = form.get("payload_json");
  const files: UploadedFile[] = [];
  for (const [field, value] of form.entries())
    if (field.startsWith("files[") && typeof value !== "string")
      files.push({
        name: value.name,
        contentType: typeByExtension(value.name) ?? (value.type || "application/octet-stream"),
        bytes: Buffer.from(await value.arrayBuffer()),
      });
  return { body: typeof json === "string" ? (JSON.parse(json) as Record<string, unknown>) : {}, files };
}

/** Discord names an uploaded file's type from its extension, whatever type the part declared. */
function typeByExtension(name: string): string | undefined {
  const types: Record<string, string> = {
    csv: "text/csv",
    txt: "text/plain",
    md: "text/markdown",
    json: "application/json",
    png: "image/png",
    pdf: "application/pdf",
  };
  return types[/\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? ""];
}
