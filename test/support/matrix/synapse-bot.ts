/**
 * The real Matrix adapter and a real Engine on a real homeserver (a private Synapse), answering
 * `echo: <text>`; its store is whatever the test gives (a SQLite file, so a restart keeps state).
 */

import { Engine, type Store } from "@switchboard/core";
import { createMemoryLogger, scriptedResponder } from "@switchboard/core/testing";
import {
  createMatrixAdapter,
  type MatrixAdapter,
  type MatrixAdapterConfig,
} from "../../../packages/matrix/src/index.ts";
import type { RegisteredUser } from "../../services/synapse-service.ts";

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
  const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
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
  const engine = new Engine({ store: options.store, adapters: [adapter], responder, logger });
  await adapter.start((message) => engine.accept(message).then(() => undefined));
  return {
    adapter,
    engine,
    logger,
    responder,
    stop: () => engine.stop(),
  };
}
