import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { type Store, Team } from "@switchboard/core";
import { teamConfigSchema } from "@switchboard/core/config";
import type { ModelCallPolicy } from "@switchboard/core/host";
import { startConsoleEngine } from "./console-engine.ts";

export const exampleTeam = teamConfigSchema.parse({
  supervisor: { prompt: "Route the user to the right specialist.", model: "sup" },
  specialists: [
    {
      name: "billing",
      description: "invoices, payments, refunds",
      prompt: "Help with billing.",
      model: "bill",
    },
    {
      name: "tech_support",
      description: "computers, laptops, errors",
      prompt: "Fix technical problems.",
      model: "tech",
    },
  ],
});

export interface TeamHarnessOptions {
  readonly store: Store;
  readonly models: Readonly<Record<string, BaseChatModel>>;
  readonly checkpointer?: BaseCheckpointSaver;
  readonly sticky?: boolean;
  readonly limits?: Partial<{ maxIterations: number; maxRepeatedToolCalls: number; wallTimeSeconds: number }>;
  readonly tools?: Record<string, StructuredToolInterface>;
  readonly team?: typeof exampleTeam;
  readonly modelCalls?: ModelCallPolicy;
}

/** A real engine running the team behind the console adapter; `say` returns what the bot printed. */
export async function startTeamHarness(options: TeamHarnessOptions) {
  const team = new Team({
    config: options.team ?? exampleTeam,
    routing: { sticky: options.sticky ?? true },
    limits: { maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600, ...options.limits },
    checkpointer: options.checkpointer ?? new MemorySaver(),
    store: options.store,
    modelFor: (name) => {
      const model = options.models[name ?? "default"];
      if (!model) throw new Error(`no scripted model "${name ?? "default"}"`);
      return model;
    },
    describeModel: (name) => `scripted:${name ?? "default"}`,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.modelCalls ? { modelCalls: options.modelCalls } : {}),
  });
  const { engine, console, printed, say } = await startConsoleEngine({
    store: options.store,
    responder: team,
    commands: team.commands,
  });
  return {
    engine,
    team,
    console,
    printed,
    say,
    stop: () => engine.stop(),
  };
}
