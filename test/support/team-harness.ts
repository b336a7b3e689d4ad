import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { Engine, type Store, Team, teamConfigSchema } from "@switchboard/core";
import Keyv from "keyv";
import { ConsoleAdapter } from "../../packages/cli/src/console/console-adapter.ts";

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
}

/** A real engine running the team behind the console adapter; `say` returns what the bot printed. */
export async function startTeamHarness(options: TeamHarnessOptions) {
  const printed: string[] = [];
  const console = new ConsoleAdapter({
    print: (line) => printed.push(line),
    state: new Keyv<string>(),
    userId: "ana",
  });
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
  });
  const engine = new Engine({
    store: options.store,
    adapters: [console],
    responder: team,
    commands: team.commands,
  });
  await engine.start();
  return {
    engine,
    team,
    console,
    printed,
    /** Types a line and waits until the engine has answered it; returns the lines printed meanwhile. */
    async say(line: string): Promise<string[]> {
      const before = printed.length;
      await console.handleLine(line);
      await engine.idle();
      return printed.slice(before);
    },
    stop: () => engine.stop(),
  };
}
