/**
 * Running an agent's tool calls: each one at most once across crashes (the run journal), its result
 * or failure as the ToolMessage the model reads next.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { RunnableConfig } from "@langchain/core/runnables";
import { StructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { isGraphInterrupt } from "@langchain/langgraph";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import { recordToolCall, stepSinkOf } from "../steps/step-sink.ts";
import type { RunJournal } from "./run-journal.ts";

/** The run's journal when this run records (tracked runs have an id), and whether it is a re-run. */
export function journaledRun(config: RunnableConfig, journal: RunJournal | undefined) {
  const runId = config.configurable?.run_id;
  if (!journal || typeof runId !== "string") return undefined;
  return { journal, runId, resumed: config.configurable?.resumed === true };
}

export const UNKNOWN_OUTCOME =
  "Outcome unknown: the service stopped while this tool was running, so it may or may not have " +
  "taken effect. Do not call it again without checking with the user first.";

/**
 * A tool call recorded before and after it runs. On a re-run a recorded result is reused; a call
 * that started but never finished is sent again only to tools that take an idempotency key (the far
 * side recognises the repeat), and otherwise reported to the agent as of unknown outcome.
 */
export async function invokeAtMostOnce(
  agent: string,
  found: StructuredToolInterface | undefined,
  call: ToolCall,
  config: RunnableConfig,
  journal: RunJournal | undefined,
): Promise<ToolMessage> {
  const run = journaledRun(config, journal);
  if (!run || !found || !call.id) return invokeTool(agent, found, call, config);
  const recorded = run.journal.toolCall(run.runId, call.id);
  if (recorded?.state === "done")
    return toolResult(call, recorded.content, recorded.status, recorded.artifact);
  if (recorded?.state === "started" && !acceptsIdempotencyKey(found))
    return toolResult(call, UNKNOWN_OUTCOME, "error");
  await run.journal.recordToolCall(run.runId, call.id, { state: "started" });
  const result = await invokeTool(agent, found, call, config);
  const content = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
  await run.journal.recordToolCall(run.runId, call.id, {
    state: "done",
    content,
    status: result.status === "error" ? "error" : "success",
    ...(result.artifact === undefined ? {} : { artifact: result.artifact as unknown }),
  });
  return result;
}

/** Tools that send `<run_id>:<tool_call_id>` to the far side as an idempotency key say so in their metadata. */
export function acceptsIdempotencyKey(tool: StructuredToolInterface): boolean {
  return tool instanceof StructuredTool && tool.metadata?.acceptsIdempotencyKey === true;
}

async function invokeTool(
  agent: string,
  found: StructuredToolInterface | undefined,
  call: ToolCall,
  config: RunnableConfig,
): Promise<ToolMessage> {
  if (!found) return toolResult(call, `Error: ${agent} has no tool named ${call.name}.`, "error");
  try {
    // Tools learn who calls them: the agent and the tool call id join the conversation key, user,
    // request and run in configurable (`<run_id>:<tool_call_id>` is the call's idempotency key).
    // Waiting on a tool (an HTTP service, an MCP server), the turn holds no CPU slot.
    // Recorded in the run-steps log (a failure too, before it becomes the model's error message).
    const output: unknown = await recordToolCall(
      stepSinkOf(config),
      { agent, tool: call.name, args: call.args },
      () =>
        awayFromCpu(() =>
          found.invoke(call.args, {
            ...config,
            configurable: { ...config.configurable, agent, tool_call_id: call.id },
          }),
        ),
      isGraphInterrupt,
    );
    if (ToolMessage.isInstance(output)) return output;
    return toolResult(call, typeof output === "string" ? output : JSON.stringify(output));
  } catch (error) {
    // Interrupts (approval) and cancellation belong to the graph; other failures go back to the model.
    if (isGraphInterrupt(error) || config.signal?.aborted) throw error;
    return toolResult(call, `Error: ${error instanceof Error ? error.message : String(error)}`, "error");
  }
}

export function toolResult(
  call: ToolCall,
  content: string,
  status: "success" | "error" = "success",
  artifact?: unknown,
): ToolMessage {
  return new ToolMessage({
    tool_call_id: call.id ?? "",
    name: call.name,
    content,
    status,
    ...(artifact === undefined ? {} : { artifact }),
  });
}
