import {
  createMemory,
  Engine,
  openCheckpointer,
  openStore,
  RequestTracking,
  type Store,
  silentLogger,
  systemClock,
  Team,
} from "@switchboard/core";
import { requestsConfigSchema } from "@switchboard/core/config";
import { createSlackAdapter } from "@switchboard/slack";
import type { FakeSlack } from "../../test/support/slack/fake-slack.ts";
import { instantModel } from "../support/instant.ts";
import { scriptedMemoryModel } from "../support/memory.ts";
import { SINGLE_AGENT_TEAM } from "../support/switchboard-stack.ts";

export interface SwitchboardSlackOptions {
  /** Store and checkpoints URL, as the CLI uses one URL for both by default. */
  readonly url: string;
  readonly memory: boolean;
  /** Runs against the store before the engine starts (seeding stored records). */
  readonly prepare?: (store: Store) => Promise<void>;
}

/**
 * Switchboard as the CLI wires it for Slack in HTTP mode — store and checkpointer from one URL,
 * the team (one agent, an instant scripted model), request tracking, memory (scripted memory
 * model) when on, the real Slack adapter receiving signed events over HTTP — against `slack`.
 */
export async function startSwitchboardSlack(slack: FakeSlack, options: SwitchboardSlackOptions) {
  const store = await openStore(options.url, { logger: silentLogger });
  const checkpoints = await openCheckpointer(options.url, { logger: silentLogger });
  await options.prepare?.(store);
  const tracking = new RequestTracking({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: requestsConfigSchema.parse({}),
  });
  const memory = createMemory({
    store,
    storeUrl: options.url,
    checkpointer: checkpoints.saver,
    model: scriptedMemoryModel(),
    config: { enabled: options.memory },
    logger: silentLogger,
  });
  const model = instantModel();
  const team = new Team({
    config: SINGLE_AGENT_TEAM,
    routing: { sticky: true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: checkpoints.saver,
    store,
    modelFor: () => model,
    describeModel: () => "bench:main",
    tools: { ...memory.tools },
    contextFor: memory.contextFor,
    beforeRun: memory.beforeRun,
    statusLines: tracking.statusLines,
    logger: silentLogger,
  });
  memory.attach(team);
  const responder = tracking.track(team);
  const adapter = await createSlackAdapter(slack.adapterConfig());
  const engine = new Engine({
    store,
    adapters: [adapter],
    responder,
    continuations: responder,
    commands: [...team.commands, ...memory.commands, ...tracking.commands()],
    observers: [memory.observer],
    logger: silentLogger,
  });
  await engine.start();
  tracking.bind(engine);
  memory.start();
  slack.connectHttp(() => adapter.port);
  return {
    /** Resolves when no turn is running and memory has recorded every answered turn. */
    async idle() {
      await engine.idle();
      await memory.idle();
    },
    async close() {
      await engine.stop();
      await tracking.close();
      await memory.close();
      await checkpoints.close();
      await store.close();
    },
  };
}
