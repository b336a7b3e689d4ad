import { randomUUID } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { Command, END, interrupt, START, StateGraph } from "@langchain/langgraph";
import { type LoadImage, withImageBlocks } from "../attachments/model-content.ts";
import { skipUntracedRunTrees } from "../runtime/untraced-run-trees.ts";
import { handoffTarget } from "./handoff.ts";
import { pairToolCalls } from "./history.ts";
import { COMMAND_PREFIX_KEY, limitMessages, TeamLimitError } from "./limits.ts";
import { modelWithTools } from "./model-with-tools.ts";
import type { RunJournal } from "./run-journal.ts";
import { announceToolCalls, streamedModelCall } from "./streamed-call.ts";
import type { LimitsConfig } from "./team-config.ts";
import { SUPERVISOR } from "./team-config.ts";
import { TeamState, type TeamStateUpdate, type TeamStateValue } from "./team-state.ts";
import { invokeAtMostOnce, journaledRun, toolResult } from "./tool-calls.ts";

/** One agent as the graph sees it. */
export interface GraphAgent {
  readonly name: string;
  readonly prompt: string;
  readonly model: BaseChatModel;
  /** Its tools, handoff tools included. */
  readonly tools: readonly StructuredToolInterface[];
  /** Its model takes image input (default): images in the history reach it as image blocks. */
  readonly acceptsImages?: boolean;
}

export interface TeamGraphOptions {
  readonly agents: readonly GraphAgent[];
  readonly limits: LimitsConfig;
  readonly checkpointer: BaseCheckpointSaver;
  /** Extra system context for this conversation (memory), looked up per model call. */
  readonly contextFor: (threadId: string) => Promise<string | undefined>;
  /** Wraps every model call (retry with backoff). */
  /**
   * Runs one model call under the process's retry policy: `call` gets each attempt's signal (a hung
   * attempt is cancelled through it) and reports its first token with `firstToken`.
   */
  readonly callModel: <T>(
    call: (signal: AbortSignal | undefined, firstToken: () => void) => Promise<T>,
    signal: AbortSignal | undefined,
  ) => Promise<T>;
  /** Tools attached to this conversation's agent at run time (find_tools). */
  readonly attachedTools: (threadId: string, agent: string) => Promise<StructuredToolInterface[]>;
  /** Tools that wait for a person's approval before they run. */
  readonly needsApproval: (toolName: string) => boolean;
  /** A tool's progress text ("is checking your invoice…"), shown while it runs. */
  readonly toolStatus?: (toolName: string) => string | undefined;
  /** Records tool-calling replies and tool results per run, so a re-run never calls a tool twice. */
  readonly journal?: RunJournal;
  /** Loads the images the history refers to, for each model call (never kept in the checkpoint). */
  readonly loadImage?: LoadImage;
}

/** What an agent asks a person to approve; the interrupt's value. */
export interface ApprovalRequest {
  readonly agent: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The resume value of an approval interrupt. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly by: string;
}

const toolsNode = (agent: string) => `${agent}__tools`;

/** Where a run's configurable carries the date, time and place line its agents' prompts end with. */
export const SITUATION_KEY = "situation";
/** Where a run's configurable carries the learnings its agents' prompts hold (read once per run). */
export const LEARNINGS_KEY = "learnings";

/**
 * The team: START goes to the conversation's active agent (or the supervisor). Each agent is a
 * model node plus a tools node; a turn ends when an agent answers without calling a tool.
 * Handoff tools jump to the target agent inside the same turn and make it the active agent.
 */
export function buildTeamGraph(options: TeamGraphOptions) {
  skipUntracedRunTrees();
  const names = options.agents.map((agent) => agent.name);
  const graph = new StateGraph(TeamState);
  for (const agent of options.agents) {
    graph.addNode(
      agent.name,
      (state: TeamStateValue, config: RunnableConfig) => callAgent(agent, state, config, options),
      { ends: [toolsNode(agent.name), END] },
    );
    graph.addNode(
      toolsNode(agent.name),
      (state: TeamStateValue, config: RunnableConfig) => runTools(agent, state, config, options),
      {
        ends: [...names, END],
      },
    );
  }
  // Node names come from configuration, so StateGraph cannot infer them as literal types; widen the
  // node-name parameter to string once, here, instead of at every edge.
  const builder = graph as unknown as StateGraph<
    typeof TeamState.spec,
    TeamStateValue,
    TeamStateUpdate,
    string
  >;
  // A conditional edge is a traced runnable step of its own (run tree, callbacks) on every turn:
  // a team of one has nothing to route, and an agent names its next step in the Command it returns.
  if (names.length === 1) builder.addEdge(START, SUPERVISOR);
  else
    builder.addConditionalEdges(
      START,
      (state: TeamStateValue) => {
        const active = state.activeAgent;
        return active && names.includes(active) ? active : SUPERVISOR;
      },
      names,
    );
  return builder.compile({ checkpointer: options.checkpointer });
}

function hasToolCalls(message: BaseMessage | undefined): message is AIMessage {
  return message !== undefined && AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0;
}

async function callAgent(
  agent: GraphAgent,
  state: TeamStateValue,
  config: RunnableConfig,
  options: TeamGraphOptions,
): Promise<Command<unknown, TeamStateUpdate>> {
  const { maxIterations } = options.limits;
  if (state.turn.modelCalls >= maxIterations)
    throw new TeamLimitError("iterations", limitMessages.iterations(maxIterations, commandPrefixOf(config)));
  const threadId = String(config.configurable?.thread_id ?? "");
  const context = await options.contextFor(threadId);
  const situation = config.configurable?.[SITUATION_KEY];
  const learnings = config.configurable?.[LEARNINGS_KEY];
  // The agent's prompt, memory's context and the learnings first, the run's date and time last: what
  // stays the same from run to run is the head a provider's prompt cache can hold.
  const system = new SystemMessage(
    [
      agent.prompt,
      context,
      typeof learnings === "string" ? learnings : undefined,
      typeof situation === "string" ? situation : undefined,
    ]
      .filter((part) => part !== undefined && part !== "")
      .join("\n\n"),
  );
  const model = modelWithTools(agent, await options.attachedTools(threadId, agent.name));
  const run = journaledRun(config, options.journal);
  const replayed = run?.resumed ? run.journal.reply(run.runId, state.turn.modelCalls) : undefined;
  const reply =
    replayed ??
    (await options.callModel(
      // Streamed, so the answering agent's text reaches the thread as it is written.
      streamedModelCall(
        model,
        [
          system,
          ...(await withImageBlocks(
            pairToolCalls(state.messages),
            agent.acceptsImages ?? true,
            options.loadImage,
          )),
        ],
        agent.name,
        config,
      ),
      config.signal,
    ));
  // Tools with side effects follow: the reply is kept first, so a re-run calls the same tools (same ids).
  if (run && !replayed && reply.tool_calls?.some((call) => handoffTarget(call.name) === undefined))
    await run.journal.recordReply(run.runId, state.turn.modelCalls, reply);
  announceToolCalls(config, agent.name, reply.tool_calls ?? [], options.toolStatus ?? (() => undefined));
  // Our own id, never the provider's: the history's reducer replaces a message whose id it already
  // holds, and OpenAI-compatible servers may reuse completion ids (per process, or a constant one),
  // which would overwrite an earlier answer and leave this turn with none.
  const message = new AIMessage({
    content: reply.content,
    tool_calls: reply.tool_calls ?? [],
    name: agent.name,
    id: randomUUID(),
    ...(reply.id ? { response_metadata: { id: reply.id } } : {}),
    usage_metadata: reply.usage_metadata,
  });
  return new Command({
    goto: hasToolCalls(message) ? toolsNode(agent.name) : END,
    update: {
      messages: [message],
      answeredBy: agent.name,
      stoppedBy: null,
      turn: { ...state.turn, modelCalls: state.turn.modelCalls + 1 },
    },
  });
}

async function runTools(
  agent: GraphAgent,
  state: TeamStateValue,
  config: RunnableConfig,
  options: TeamGraphOptions,
) {
  const last = state.messages.at(-1);
  const calls: ToolCall[] = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
  const handoff = calls.find(
    (call) => handoffTarget(call.name) !== undefined && agent.tools.some((t) => t.name === call.name),
  );
  if (handoff) {
    // A handoff ends this agent's part of the turn: it never runs beside other tools.
    const target = handoffTarget(handoff.name) ?? SUPERVISOR;
    const messages = calls.map((call) =>
      toolResult(
        call,
        call === handoff
          ? `Handed the conversation to ${target}.`
          : "Not run: a handoff ends this agent's turn.",
      ),
    );
    return new Command({
      goto: target,
      update: { messages, activeAgent: target === SUPERVISOR ? null : target },
    });
  }

  // Approvals are asked before anything runs: on resume this node starts over, and nothing runs twice
  // (after a crash, the run journal keeps a re-run from repeating a call).
  const decisions = calls.map((call) =>
    options.needsApproval(call.name)
      ? interrupt<ApprovalRequest, ApprovalDecision>({ agent: agent.name, tool: call.name, args: call.args })
      : undefined,
  );
  const threadId = String(config.configurable?.thread_id ?? "");
  const tools = [...agent.tools, ...(await options.attachedTools(threadId, agent.name))];
  let { streakTool, streakLength } = state.turn;
  const results: ToolMessage[] = [];
  let stoppedBy: string | null = null;
  for (const [index, call] of calls.entries()) {
    streakLength = call.name === streakTool ? streakLength + 1 : 1;
    streakTool = call.name;
    const max = options.limits.maxRepeatedToolCalls;
    if (streakLength > max)
      throw new TeamLimitError(
        "repeated-tool",
        limitMessages.repeatedTool(call.name, max, commandPrefixOf(config)),
      );
    const decision = decisions[index];
    if (decision && !decision.approved) {
      results.push(toolResult(call, `Not run: ${decision.by} denied this action.`, "error"));
      continue;
    }
    const found = tools.find((candidate) => candidate.name === call.name);
    results.push(await invokeAtMostOnce(agent.name, found, call, config, options.journal));
    if (found?.returnDirect) stoppedBy = call.name;
  }
  const turn = { ...state.turn, streakTool, streakLength };
  // A tool that ends the run (find_tools): the follow-up run starts with what it changed.
  if (stoppedBy) return new Command({ goto: END, update: { messages: results, turn, stoppedBy } });
  return new Command({ goto: agent.name, update: { messages: results, turn } });
}

function commandPrefixOf(config: RunnableConfig): string {
  const prefix = config.configurable?.[COMMAND_PREFIX_KEY];
  return typeof prefix === "string" ? prefix : "/";
}
