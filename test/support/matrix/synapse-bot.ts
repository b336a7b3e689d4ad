/**
 * The real Matrix adapter and a real Engine on a real homeserver (a private Synapse), answering
 * `echo: <text>` — or, asked `stream: <n>`, n numbered sentences written piece by piece as a
 * streaming model writes them; its store is whatever the test gives (a SQLite file, so a restart
 * keeps state).
 */

import { Engine, type Store } from "@switchboard/core";
import {
  createMemoryLogger,
  longAnswerPieces,
  scriptedResponder,
  streamedAnswer,
} from "@switchboard/core/testing";
import {
  createMatrixAdapter,
  type MatrixAdapter,
  type MatrixAdapterConfig,
} from "../../../packages/matrix/src/index.ts";
import type { RegisteredUser } from "../../services/synapse-service.ts";

/** Asking `stream: <n>` gets `streamedPieces(n)`, streamed. */
const STREAMED = /^stream: (\d+)$/;

export const streamedPieces = (sentences: number) => longAnswerPieces(sentences);

export interface SynapseBot {
  readonly adapter: MatrixAdapter;
  readonly engine: Engine;
  readonly logger: ReturnType<typeof createMemoryLogger>;
  readonly responder: ReturnType<typeof scriptedResponder>;
  stop(): Promise<void>;
}

export async function startSynapseBot(options: {
  readonly homeserverUrl: string;
  readonly bot: RegisteredUser;
  readonly store: Store;
  readonly config?: Partial<MatrixAdapterConfig>;
}): Promise<SynapseBot> {
  const logger = createMemoryLogger();
  const responder = scriptedResponder((turn) => {
    const streamed = STREAMED.exec(turn.text);
    if (!streamed) return `echo: ${turn.text}`;
    return streamedAnswer({ pieces: streamedPieces(Number(streamed[1])), paceMs: 25 })(turn);
  });
  const adapter = await createMatrixAdapter(
    {
      homeserverUrl: options.homeserverUrl,
      accessToken: options.bot.accessToken,
      syncTimeoutMs: 2_000,
      streaming: "off",
      ...options.config,
    },
    { store: options.store, logger },
  );
  // Typing shows as soon as work starts, so a test sees it even for a quick answer.
  const engine = new Engine({
    store: options.store,
    adapters: [adapter],
    responder,
    logger,
    settings: { typingDelayMs: 0 },
  });
  await adapter.start((message) => engine.accept(message).then(() => undefined));
  return {
    adapter,
    engine,
    logger,
    responder,
    stop: () => engine.stop(),
  };
}
