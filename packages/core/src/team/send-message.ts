/**
 * `send_message`: an agent says something in the thread now ("found three options, checking
 * prices…") and carries on; its answer still comes at the end of the turn. The message goes through
 * the turn's outbox under a key made of the run id and the tool call id, which a re-run of the turn
 * after a crash gives the same call (the run journal replays the reply that asked for it): the outbox
 * finds the key and posts nothing twice.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { InterimMessages } from "../engine/responder.ts";

export const SEND_MESSAGE = "send_message";

/** Where a run's configurable carries the turn's interim messages (never checkpointed). */
export const INTERIM_KEY = "interim_messages";

/** What the model reads when it asks for more messages than a turn allows. */
export const interimLimitText = (max: number) =>
  `You have sent ${max} message${max === 1 ? "" : "s"} in this turn, the most allowed. ` +
  "Do not send more: finish the work and put the rest in your answer.";

function interimOf(config: RunnableConfig): InterimMessages | undefined {
  const value: unknown = config.configurable?.[INTERIM_KEY];
  return typeof value === "object" && value !== null && "post" in value
    ? (value as InterimMessages)
    : undefined;
}

/** The key of one interim message: the same for the same tool call in every attempt of the run. */
export function interimKey(config: RunnableConfig): string {
  const runId = config.configurable?.run_id;
  const callId = config.configurable?.tool_call_id;
  if (typeof callId !== "string" || callId === "")
    throw new Error("send_message was called without a call id");
  return `${typeof runId === "string" ? runId : "turn"}:${callId}`;
}

/** The tool, for every agent; at most `maxPerTurn` messages a turn (re-runs included). */
export function sendMessageTool(maxPerTurn: number) {
  return tool(
    async ({ text }: { text: string }, config: RunnableConfig) => {
      const interim = interimOf(config);
      // A run nobody is watching live (a background task, a schedule's digest): the answer is all.
      if (!interim) throw new Error("messages cannot be sent from this run; put it in your answer");
      const key = interimKey(config);
      if (!interim.has(key) && interim.count() >= maxPerTurn) throw new Error(interimLimitText(maxPerTurn));
      const agent = config.configurable?.agent;
      const outcome = await interim.post({
        key,
        text,
        agent: typeof agent === "string" ? agent : "",
      });
      if (!outcome.delivered) throw new Error(`the message could not be posted: ${outcome.failed}`);
      return "Sent. Carry on; your answer still ends the turn as usual.";
    },
    {
      name: SEND_MESSAGE,
      description:
        "Post a short message in the conversation right now and keep working (progress on long work, " +
        "what you found so far, what you are about to do). Your final answer still comes at the end as usual; " +
        `do not repeat in it what you sent. At most ${maxPerTurn} per turn.`,
      schema: z.object({ text: z.string().min(1).describe("What to say now, in the user's language.") }),
      // The outbox knows the key: a re-run after a crash may call it again, and nothing is posted twice.
      metadata: { acceptsIdempotencyKey: true },
    },
  );
}
