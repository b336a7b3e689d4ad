import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGateway } from "./gateway.ts";
import { InteractionDesk } from "./interactions.ts";
import {
  ChannelKind,
  type ChannelRecord,
  type InteractionRecord,
  type MessageRecord,
  type UserRecord,
} from "./records.ts";
import { createRestHandler, type RecordedRequest } from "./rest.ts";
import { DiscordWorld } from "./world.ts";

export interface FakeDiscordOptions {
  /** The Developer Portal's MESSAGE CONTENT INTENT switch (on by default). */
  readonly messageContentIntent?: boolean;
}

/**
 * A local Discord for tests: REST at `apiUrl` (give it to discord.js as `rest.api`), the gateway
 * URL is handed out by GET /gateway/bot as on the real service. Tests act as people (write,
 * edit, reply, use slash commands) and read back what the bot did.
 */
export class FakeDiscord {
  readonly world: DiscordWorld;
  readonly desk: InteractionDesk;
  readonly gateway: FakeGateway;
  readonly requests: readonly RecordedRequest[];
  readonly #http: Server;
  readonly #port: number;

  private constructor(
    world: DiscordWorld,
    desk: InteractionDesk,
    http: Server,
    port: number,
    requests: RecordedRequest[],
  ) {
    this.world = world;
    this.desk = desk;
    this.#http = http;
    this.#port = port;
    this.requests = requests;
    this.gateway = new FakeGateway(world, http, () => `ws://127.0.0.1:${this.#port}/gateway`);
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const world = new DiscordWorld();
    world.messageContentIntentEnabled = options.messageContentIntent ?? true;
    const desk = new InteractionDesk(world);
    let gatewayUrl = "";
    const rest = createRestHandler(world, desk, () => gatewayUrl);
    const http = createServer((request, response) => void rest.handle(request, response));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
    world.cdn.baseUrl = `http://127.0.0.1:${port}`;
    return new FakeDiscord(world, desk, http, port, rest.requests);
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }

  get token(): string {
    return this.world.token;
  }

  /** `<@bot>` as a Discord client writes a mention. */
  get mention(): string {
    return `<@${this.world.bot.id}>`;
  }

  /** Someone writes in a channel, thread or DM (DMs: pass `dmWith`). */
  say(input: {
    content: string;
    channel?: ChannelRecord;
    author?: UserRecord;
    replyTo?: string;
    files?: readonly { name: string; bytes: Buffer; contentType: string }[];
    voice?: boolean;
  }): MessageRecord {
    const author = input.author ?? this.world.ada;
    const channel = input.channel ?? this.world.general;
    return this.world.userWrites({
      channelId: channel.id,
      authorId: author.id,
      content: input.content,
      ...(input.replyTo === undefined ? {} : { replyTo: input.replyTo }),
      ...(input.files ? { files: input.files } : {}),
      ...(input.voice ? { voice: true } : {}),
    });
  }

  dmWith(user: UserRecord = this.world.ada): ChannelRecord {
    return this.world.dmChannelWith(user.id);
  }

  edit(message: MessageRecord, content: string): void {
    this.world.userEdits(message.id, content);
  }

  slash(input: {
    name: string;
    channel?: ChannelRecord;
    user?: UserRecord;
    options?: Record<string, string>;
  }): InteractionRecord {
    return this.desk.use({
      name: input.name,
      channelId: (input.channel ?? this.world.general).id,
      userId: (input.user ?? this.world.ada).id,
      ...(input.options ? { options: input.options } : {}),
    });
  }

  /** Someone presses a button on a message the bot posted. */
  press(message: MessageRecord, customId: string, user: UserRecord = this.world.ada): InteractionRecord {
    return this.desk.press({ messageId: message.id, customId, userId: user.id });
  }

  channel(id: string): ChannelRecord | undefined {
    return this.world.channel(id);
  }

  thread(id: string): ChannelRecord | undefined {
    const channel = this.world.channel(id);
    return channel?.type === ChannelKind.PublicThread ? channel : undefined;
  }

  /** Everything the bot wrote (channel messages and interaction responses), oldest first. */
  botMessages(): (MessageRecord & { pings: string[] })[] {
    return [...this.world.messages.values()].filter((message) => message.authorId === this.world.bot.id);
  }

  /** Requests the bot made, optionally only those matching a method and path pattern. */
  requestsTo(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && path.test(request.path));
  }

  async close(): Promise<void> {
    await this.gateway.close();
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }
}
