import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Command } from "../commands/command.ts";
import { COMMAND_PREFIX_KEY } from "../team/limits.ts";
import type { HumanHandoffs } from "./human-handoffs.ts";

export const HAND_TO_HUMAN = "hand_to_human";

/** `/human [reason]` and `/bot`: the same on every platform. */
export function humanCommands(handoffs: HumanHandoffs): Command[] {
  return [
    {
      name: "human",
      usage: "[reason]",
      summary: "hand this thread to a person (the bot stops answering here until /bot)",
      async run({ key, args, message, prefix }) {
        return {
          reply: await handoffs.take(key, message.author.displayName ?? message.author.id, args, prefix),
        };
      },
    },
    {
      name: "bot",
      summary: "hand this thread back to the bot after a person had it",
      async run({ key, message }) {
        return { reply: await handoffs.release(key, message.author.id) };
      },
    },
  ];
}

/** `hand_to_human` for agents: the conversation comes from the run, never from the model. */
export function handToHumanTool(handoffs: HumanHandoffs): StructuredToolInterface {
  return tool(
    async ({ reason }, config) => {
      const key = config?.configurable?.thread_id;
      if (typeof key !== "string" || key === "")
        throw new Error("hand_to_human needs the conversation of the run");
      const agent = typeof config?.configurable?.agent === "string" ? config.configurable.agent : "an agent";
      const prefix = config?.configurable?.[COMMAND_PREFIX_KEY];
      const sentence = await handoffs.take(key, agent, reason, typeof prefix === "string" ? prefix : "/");
      return `${sentence} Tell the user, in one short sentence, that a person will answer here.`;
    },
    {
      name: HAND_TO_HUMAN,
      description:
        "Hand this conversation to a person (a human colleague) when the user asks for one, or when you cannot help and a person can. " +
        "After this you stop answering in this conversation until it is handed back.",
      schema: z.object({
        reason: z
          .string()
          .describe("Why a person is needed, in a few words, for the colleague who takes over."),
      }),
      // Taking a thread that is already with a person changes nothing: a repeat is harmless.
      metadata: { acceptsIdempotencyKey: true },
    },
  );
}
