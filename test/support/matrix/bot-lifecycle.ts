import { openStore, type Store } from "@switchboard/core";
import { afterEach, beforeEach } from "vitest";
import { type BotOptions, createWorld, type MatrixWorld, type RunningBot, startBot } from "./bot-fixture.ts";

/** A fresh homeserver world and store per test; every bot started through it is stopped afterwards. */
export class MatrixBots {
  #world: MatrixWorld | undefined;
  #store: Store | undefined;
  readonly #running: RunningBot[] = [];

  get world(): MatrixWorld {
    if (!this.#world) throw new Error("MatrixBots is used outside a test");
    return this.#world;
  }

  get store(): Store {
    if (!this.#store) throw new Error("MatrixBots is used outside a test");
    return this.#store;
  }

  readonly start = async (options: BotOptions = {}): Promise<RunningBot> => {
    const bot = await startBot(this.world, this.store, options);
    this.#running.push(bot);
    return bot;
  };

  /** Stops one bot as a clean shutdown would: after its queued work. */
  readonly stop = async (bot: RunningBot): Promise<void> => {
    this.#running.splice(this.#running.indexOf(bot), 1);
    await bot.engine.idle();
    await bot.stop();
  };

  async setUp(): Promise<void> {
    this.#world = await createWorld();
    this.#store = await openStore("memory://");
  }

  async tearDown(): Promise<void> {
    for (const bot of this.#running.splice(0)) await bot.stop();
    await this.#world?.homeserver.close();
    await this.#store?.close();
  }
}

export function useMatrixBots(): MatrixBots {
  const bots = new MatrixBots();
  beforeEach(() => bots.setUp());
  afterEach(() => bots.tearDown());
  return bots;
}
