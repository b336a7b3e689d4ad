import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ModelEndpoints } from "@switchboard/core/host";
import type { ModelCatalog } from "../../../packages/cli/src/app/model-catalog.ts";
import { scriptedTeamModel } from "../memory-harness.ts";
import { PacedTeamModel } from "./paced-team-model.ts";

/** What the supervisor tells a user who asks for a story: long enough to watch it being written. */
export const STORY = Array.from({ length: 40 }, (_, index) => `word${index + 1}`).join(" ");

/** The team of the console tests: a supervisor, and billing with a refund tool that needs approval. */
export const CONSOLE_TEAM_YAML = `
team:
  supervisor:
    prompt: You are the supervisor. Hand billing questions to billing.
  specialists:
    - name: billing
      description: invoices, payments, refunds, charges
      prompt: You are billing. Refund what was charged twice.
      tools: [refund]
`;

/** Every answer says how many tokens it took, as real providers do, so usage has something to count. */
function withUsage(message: AIMessage, input: number, output: number): AIMessage {
  message.usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  return message;
}

function call(name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({ content: "", tool_calls: [{ id: randomUUID(), name, args, type: "tool_call" }] });
}

/**
 * What each agent does: the supervisor hands anything about charges or refunds to billing and
 * greets otherwise; billing asks to run `refund` (which waits for approval), then reports its result.
 */
export function answerAsTeam(messages: BaseMessage[]): AIMessage {
  const system = String(messages[0]?.content ?? "");
  const last = messages.at(-1);
  const asked = [...messages].reverse().find((m) => HumanMessage.isInstance(m));
  const question = asked?.text ?? "";
  // A picture reaches the model as an image block: say what was seen, as a vision model would.
  const images = Array.isArray(asked?.content)
    ? asked.content.filter((block) => block.type === "image" || block.type === "image_url").length
    : 0;
  if (images > 0 && !(last && ToolMessage.isInstance(last)))
    return withUsage(
      new AIMessage(
        `I can see ${images} image(s). ${question.split("\n").find((line) => line.startsWith("[Image attached"))}`,
      ),
      100,
      15,
    );
  // A background task: a long report, written slowly; once someone steered it, a short one.
  if (system.includes("working alone on a background task")) {
    const guidance = messages.find(
      (m) => HumanMessage.isInstance(m) && String(m.content).startsWith("Guidance from"),
    );
    if (guidance)
      return withUsage(new AIMessage(`Task report, as asked (${String(guidance.content)}).`), 200, 20);
    return withUsage(
      new AIMessage(`Task report: ${Array.from({ length: 10 }, () => STORY).join(" ")}.`),
      200,
      400,
    );
  }
  // "remember that …": the supervisor keeps it as a learning about the person, then says so.
  const remember = /^remember that (.+)$/i.exec(question);
  if (remember && last && ToolMessage.isInstance(last) && last.name === "remember")
    return withUsage(new AIMessage(`Noted. ${String(last.content)}`), 110, 20);
  if (remember) return withUsage(call("remember", { text: remember[1], scope: "user" }), 110, 12);
  if (/in the background/i.test(question) && last && ToolMessage.isInstance(last))
    return withUsage(new AIMessage(String(last.content)), 120, 40);
  if (/in the background/i.test(question))
    return withUsage(call("start_task", { title: "Flights to Lisbon", instructions: question }), 120, 20);
  if (system.includes("You are billing")) {
    if (last && ToolMessage.isInstance(last) && last.name === "refund")
      return withUsage(new AIMessage(`Refund done: ${String(last.content)}`), 180, 20);
    return withUsage(call("refund", { amount: 42 }), 150, 12);
  }
  if (/charged|refund/i.test(question) && !(last && ToolMessage.isInstance(last)))
    return withUsage(call("transfer_to_billing", {}), 120, 8);
  if (/story/i.test(question)) return withUsage(new AIMessage(`Once upon a time: ${STORY}.`), 100, 40);
  return withUsage(new AIMessage(`Hello from the supervisor. You said: ${question}`), 100, 15);
}

/** A model catalog whose every model is the scripted team (the memory stays extractive). */
export function scriptedCatalog(options: { paceMs?: number } = {}): ModelCatalog {
  // Paced: text answers stream word by word, as a provider's would.
  const model =
    options.paceMs === undefined
      ? scriptedTeamModel(answerAsTeam, 2_000)
      : new PacedTeamModel(answerAsTeam, options.paceMs);
  return scriptedCatalogOf(model);
}

/** A model catalog whose every model is `model`. */
export function scriptedCatalogOf(model: ReturnType<ModelCatalog["modelFor"]>): ModelCatalog {
  return {
    defaultSpec: { provider: "offline" },
    specFor: () => ({ provider: "offline" }),
    modelFor: () => model,
    describe: () => "scripted",
    endpoints: new ModelEndpoints(),
  };
}
