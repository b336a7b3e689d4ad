import {
  type AcceptOutcome,
  Engine,
  type InboundMessage,
  type Store,
  type Turn,
  type TurnAnswer,
} from "@switchboard/core";
import type { TeamIdentities } from "@switchboard/core/adapter";
import { createMemoryLogger, scriptedResponder, waitFor } from "@switchboard/core/testing";
import {
  createMatrixAdapter,
  type MatrixAdapter,
  type MatrixAdapterConfig,
} from "../../../packages/matrix/src/index.ts";
import { FakeHomeserver } from "./fake-homeserver.ts";

/** A homeserver stand-in with the bot account, two users, a group room and a DM room. */
export interface MatrixWorld {
  readonly homeserver: FakeHomeserver;
  readonly bot: string;
  readonly alice: string;
  readonly bob: string;
  readonly group: string;
  readonly dm: string;
}

export async function createWorld(): Promise<MatrixWorld> {
  const homeserver = await FakeHomeserver.start();
  const bot = homeserver.registerUser("switchboard", {
    displayName: "Switchboard",
    token: "bot-token",
    password: "bot-password",
  });
  const alice = homeserver.registerUser("alice", { displayName: "Alice", token: "alice-token" });
  const bob = homeserver.registerUser("bob", { displayName: "Bob", token: "bob-token" });
  const group = homeserver.state.createRoom({ members: [alice, bob, bot] });
  const dm = homeserver.state.createRoom({ members: [alice, bot] });
  homeserver.state.markDirect(bot, alice, dm);
  return { homeserver, bot, alice, bob, group, dm };
}

export type Answer = (text: string) => string | Promise<string>;

/** The real adapter and a real Engine, recording what reached the engine and which conversation each turn had. */
export interface RunningBot {
  readonly engine: Engine;
  readonly adapter: MatrixAdapter;
  readonly responder: ReturnType<typeof scriptedResponder>;
  readonly logger: ReturnType<typeof createMemoryLogger>;
  readonly outcomes: { message: InboundMessage; outcome: AcceptOutcome }[];
  outcomeOf(id: string): Promise<AcceptOutcome>;
  /** The conversation key of the turn that answered message `id`. */
  turnKeyOf(id: string): Promise<string>;
  stop(): Promise<void>;
}

export interface BotOptions {
  readonly config?: Partial<MatrixAdapterConfig>;
  readonly answer?: Answer;
  /** Answers with the whole turn in hand (to stream through `turn.onEvent`); wins over `answer`. */
  readonly answerTurn?: (turn: Turn) => Promise<string | TurnAnswer>;
  /** How the team's agents show themselves (their `display`). */
  readonly identities?: TeamIdentities;
  /** Runs before each message reaches the engine; throwing simulates a crash while handling it. */
  readonly beforeAccept?: (message: InboundMessage) => void;
}

export async function startBot(
  world: MatrixWorld,
  store: Store,
  options: BotOptions = {},
): Promise<RunningBot> {
  const logger = createMemoryLogger();
  const responder = scriptedResponder((turn) => {
    if (options.answerTurn) return options.answerTurn(turn);
    return options.answer ? options.answer(turn.text) : `echo: ${turn.text}`;
  });
  const adapter = await createMatrixAdapter(
    {
      homeserverUrl: world.homeserver.url,
      accessToken: "bot-token",
      syncTimeoutMs: 5_000,
      ...options.config,
    },
    { store, logger },
  );
  const engine = new Engine({
    store,
    adapters: [adapter],
    responder,
    logger,
    ...(options.identities ? { identities: options.identities } : {}),
  });
  const outcomes: RunningBot["outcomes"] = [];
  await adapter.start(async (message) => {
    options.beforeAccept?.(message);
    outcomes.push({ message, outcome: await engine.accept(message) });
  });
  return {
    engine,
    adapter,
    responder,
    logger,
    outcomes,
    outcomeOf: (id) =>
      waitFor(
        `message ${id} to reach the engine`,
        () => outcomes.filter((entry) => entry.message.id === id).at(-1)?.outcome,
      ),
    turnKeyOf: async (id) =>
      (await waitFor(`a turn answering ${id}`, () => responder.turns.find((turn) => turn.message.id === id)))
        .key,
    async stop() {
      await engine.stop();
    },
  };
}
