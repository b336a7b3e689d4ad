import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import {
  type Command,
  Engine,
  openCheckpointer,
  openStore,
  type Responder,
  type Store,
  silentLogger,
  Team,
  type TeamConfig,
  type TurnObserver,
} from "@switchboard/core";
import { teamConfigSchema } from "@switchboard/core/config";
import type { ContinuationHandler } from "@switchboard/core/host";
import { TimingAdapter } from "./timing-adapter.ts";

/** One agent answering everything: the smallest team, what a single-bot deployment runs. */
export const SINGLE_AGENT_TEAM: TeamConfig = teamConfigSchema.parse({
  supervisor: { prompt: "Answer the user briefly.", model: "main" },
  specialists: [],
});

export interface StackOptions {
  /** Store and checkpoints URL (checkpoints use the same URL, as the CLI does by default). */
  readonly url: string;
  readonly models: Readonly<Record<string, BaseChatModel>>;
  readonly team?: TeamConfig;
  readonly sticky?: boolean;
  /** Memory and similar features: hooks into the team and the engine. */
  readonly extend?: (store: Store, checkpointer: BaseCheckpointSaver, url: string) => StackExtension;
}

export interface StackExtension {
  readonly contextFor?: (key: string) => Promise<string | undefined>;
  /** Before each new message's run (memory closes a quiet session). */
  readonly beforeRun?: (key: string) => Promise<void>;
  /** Tools agents have besides their named ones (start_task). */
  readonly builtInTools?: (agent: string) => readonly StructuredToolInterface[];
  /** Runs queued continuations (a task's ending). */
  readonly continuations?: ContinuationHandler;
  /** Told the engine once it exists (tasks queue their endings through it). */
  readonly bind?: (engine: Engine) => void;
  readonly tools?: Readonly<Record<string, StructuredToolInterface>>;
  readonly commands?: readonly Command[];
  readonly observers?: readonly TurnObserver[];
  readonly attach?: (team: Team) => void;
  readonly close?: () => Promise<void>;
}

export interface Stack {
  readonly engine: Engine;
  /** Milliseconds spent inside the team (the responder) so far: the rest of a turn is the engine's own. */
  readonly responderMs: () => number;
  readonly team: Team;
  readonly adapter: TimingAdapter;
  readonly store: Store;
  readonly checkpointer: BaseCheckpointSaver;
  close(): Promise<void>;
}

/** The production pipeline: store and checkpointer from one URL, the team, the engine, one platform. */
export async function openStack(options: StackOptions): Promise<Stack> {
  const store = await openStore(options.url, { logger: silentLogger });
  const checkpoints = await openCheckpointer(options.url, { logger: silentLogger });
  const extension = options.extend?.(store, checkpoints.saver, options.url) ?? {};
  const team = new Team({
    config: options.team ?? SINGLE_AGENT_TEAM,
    routing: { sticky: options.sticky ?? true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: checkpoints.saver,
    store,
    modelFor: (name) => {
      const model = options.models[name ?? "main"];
      if (!model) throw new Error(`bench: no model named ${name ?? "main"}`);
      return model;
    },
    describeModel: (name) => `bench:${name ?? "main"}`,
    ...(extension.contextFor ? { contextFor: extension.contextFor } : {}),
    ...(extension.beforeRun ? { beforeRun: extension.beforeRun } : {}),
    ...(extension.tools ? { tools: extension.tools } : {}),
    ...(extension.builtInTools ? { builtInTools: extension.builtInTools } : {}),
  });
  extension.attach?.(team);
  const adapter = new TimingAdapter();
  let responderMs = 0;
  const timedTeam: Responder = {
    async respond(turn) {
      const started = performance.now();
      try {
        return await team.respond(turn);
      } finally {
        responderMs += performance.now() - started;
      }
    },
  };
  const engine = new Engine({
    store,
    adapters: [adapter],
    responder: timedTeam,
    commands: [...team.commands, ...(extension.commands ?? [])],
    observers: extension.observers ?? [],
    ...(extension.continuations ? { continuations: extension.continuations } : {}),
  });
  extension.bind?.(engine);
  await engine.start();
  return {
    engine,
    responderMs: () => responderMs,
    team,
    adapter,
    store,
    checkpointer: checkpoints.saver,
    async close() {
      await engine.stop();
      await extension.close?.();
      await checkpoints.close();
      await store.close();
    },
  };
}
