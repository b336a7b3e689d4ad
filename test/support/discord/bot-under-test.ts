import {
  type AcceptOutcome,
  Engine,
  type InboundMessage,
  type Logger,
  openStore,
  type Store,
  type Turn,
  type TurnAnswer,
} from "@switchboard/core";
import type { TeamIdentities } from "@switchboard/core/adapter";
import { scriptedResponder, waitFor } from "../../../packages/core/src/testing/index.ts";
import type { DiscordAdapterConfigInput } from "../../../packages/discord/src/config.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../../../packages/discord/src/index.ts";
import { FakeDiscord } from "./fake-discord.ts";
import type { MessageRecord } from "./records.ts";

type PostedRecord = MessageRecord & { pings: string[] };

export type Answer = (turn: Turn) => string | TurnAnswer | Promise<string | TurnAnswer>;

/** Beyond the adapter's settings: the team's identities, and a store the adapter keeps its records in. */
export interface BotExtras {
  readonly identities?: TeamIdentities;
  readonly store?: Store;
}
type AdapterOptions = Omit<DiscordAdapterConfigInput, "token" | "apiUrl">;

/**
 * A real Engine (in-memory store) with the Discord adapter on the real discord.js client,
 * connected to a fresh local Discord. The responder answers `echo: <text>` unless a test sets
 * `answer`; every turn and every engine decision is recorded.
 */
export class BotUnderTest {
  readonly fake: FakeDiscord;
  readonly adapter: DiscordAdapter;
  readonly outcomes: { message: InboundMessage; outcome: AcceptOutcome }[] = [];
  answer: Answer = (turn) => `echo: ${turn.text}`;
  readonly #engine: Engine;
  readonly #store: Store;
  readonly turns: Turn[];

  private constructor(
    fake: FakeDiscord,
    adapter: DiscordAdapter,
    store: Store,
    logger: Logger | undefined,
    identities: TeamIdentities | undefined,
  ) {
    this.fake = fake;
    this.adapter = adapter;
    this.#store = store;
    const responder = scriptedResponder((turn) => this.answer(turn));
    this.turns = responder.turns;
    this.#engine = new Engine({
      store,
      adapters: [adapter],
      responder,
      ...(logger ? { logger } : {}),
      ...(identities ? { identities } : {}),
    });
  }

  /** `config` may depend on the stand-in's ids (channels for allowlists). */
  static async start(
    config: AdapterOptions | ((fake: FakeDiscord) => AdapterOptions) = {},
    logger?: Logger,
    extras: BotExtras = {},
  ) {
    const fake = await FakeDiscord.start();
    const options = typeof config === "function" ? config(fake) : config;
    const store = extras.store ?? (await openStore("memory://"));
    const adapter = await createDiscordAdapter(
      { token: fake.token, apiUrl: fake.apiUrl, commandGuildIds: [fake.world.guildId], ...options },
      { ...(logger ? { logger } : {}), ...(extras.store ? { store } : {}) },
    );
    const bot = new BotUnderTest(fake, adapter, store, logger, extras.identities);
    await adapter.start(async (message) => {
      bot.outcomes.push({ message, outcome: await bot.#engine.accept(message) });
    });
    return bot;
  }

  /** The engine's decision on a message, once the adapter has handed it over. */
  outcomeOf(id: string): Promise<AcceptOutcome> {
    return waitFor(
      `the adapter to hand ${id} to the engine`,
      () => this.outcomes.find((entry) => entry.message.id === id)?.outcome,
    );
  }

  /** The conversation key of the turn that answered message `id`. */
  turnFor(id: string): Promise<Turn> {
    return waitFor(`a turn for ${id}`, () => this.turns.find((turn) => turn.message.id === id));
  }

  /** Bot messages (with text) in a channel or thread, oldest first. */
  postsIn(channelId: string): PostedRecord[] {
    return this.fake
      .botMessages()
      .filter((message) => message.channelId === channelId && message.content !== "");
  }

  waitForPostsIn(channelId: string, count: number): Promise<PostedRecord[]> {
    return waitFor(`${count} bot message(s) in ${channelId}`, () => {
      const posts = this.postsIn(channelId);
      return posts.length >= count ? posts : undefined;
    });
  }

  idle(): Promise<void> {
    return this.#engine.idle();
  }

  async close(): Promise<void> {
    await this.#engine.stop();
    await this.#store.close();
    await this.fake.close();
  }
}
