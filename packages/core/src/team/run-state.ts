/**
 * A team run read from its conversation's checkpointed state: what the graph starts from
 * (`startOf`) and what a run that ended left behind (`outcomeOf`).
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { INTERRUPT, isInterrupted, Command as LangGraphCommand } from "@langchain/langgraph";
import { humanTurn } from "../attachments/model-content.ts";
import { FILES_ARTIFACT_KEY, type OutboundFile } from "../attachments/stored-attachment.ts";
import { estimateTokens, textOf } from "./history.ts";
import type { RunInput, RunOutcome } from "./run-outcome.ts";
import { SUPERVISOR } from "./team-config.ts";
import type { ApprovalRequest, buildTeamGraph } from "./team-graph.ts";
import { FRESH_TURN, type TeamStateValue } from "./team-state.ts";

type TeamGraph = ReturnType<typeof buildTeamGraph>;

/** What the team's graph is invoked with: a fresh turn, an approval decision, or null (go on). */
export type GraphInput = Parameters<TeamGraph["invoke"]>[0];

/**
 * What the graph is given: the user's text as a fresh turn, an approval decision, or — for a run
 * stopped part-way (its checkpoint names it and still has steps to take) — nothing, so the graph
 * continues where it stopped instead of hearing the message twice. A run that is run again after
 * it ended (its checkpoint names it, has no steps left and still ends with what it answered) is not
 * given anything: it is `finished`.
 */
export async function startOf(
  graph: Pick<TeamGraph, "getState">,
  input: RunInput,
  activeAgent: string | null,
): Promise<{ readonly input: GraphInput } | { readonly finished: Record<string, unknown> }> {
  if (input.resume !== undefined) return { input: new LangGraphCommand({ resume: input.resume }) };
  if (input.resumed && input.runId) {
    const snapshot = await graph.getState({ configurable: { thread_id: input.key } });
    const values = snapshot.values as Partial<TeamStateValue>;
    if (values.runId === input.runId) {
      if (snapshot.next.length > 0) return { input: null };
      // Its answer must still be there: archiving a quiet session since then leaves no history.
      if (values.stoppedBy || AIMessage.isInstance(values.messages?.at(-1)))
        return { finished: snapshot.values };
    }
  }
  const text = [input.text ?? "", input.attachments?.modelText ?? ""]
    .filter((part) => part !== "")
    .join("\n\n");
  return {
    input: {
      messages: [humanTurn(text, input.attachments?.images ?? [])],
      activeAgent,
      answeredBy: null,
      stoppedBy: null,
      runId: input.runId ?? null,
      turn: FRESH_TURN,
    },
  };
}

/** What a run that ended left in the conversation's state: its answer, its question, or its stop. */
export function outcomeOf(state: Record<string, unknown>): RunOutcome {
  const values = state as TeamStateValue;
  const agent = values.answeredBy ?? SUPERVISOR;
  if (isInterrupted<ApprovalRequest>(state)) {
    const approval = state[INTERRUPT][0]?.value;
    if (approval) return { kind: "awaiting-approval", approval, agent };
  }
  if (values.stoppedBy) return { kind: "stopped-for-tool", tool: values.stoppedBy, agent };
  const last = values.messages.at(-1);
  const files = filesOfTurn(values.messages);
  return {
    kind: "answered",
    text: last && AIMessage.isInstance(last) ? textOf(last) : "",
    agent,
    historyTokens: estimateTokens(values.messages),
    ...(files.length > 0 ? { files } : {}),
  };
}

/** Files the tools of the run's latest turn returned (artifacts of the tool results after the user's message). */
function filesOfTurn(messages: readonly BaseMessage[]): OutboundFile[] {
  const start = messages.findLastIndex((message) => HumanMessage.isInstance(message));
  return messages.slice(start + 1).flatMap((message) => {
    if (!ToolMessage.isInstance(message)) return [];
    const artifact: unknown = message.artifact;
    if (typeof artifact !== "object" || artifact === null) return [];
    const files: unknown = (artifact as Record<string, unknown>)[FILES_ARTIFACT_KEY];
    return Array.isArray(files) ? (files as OutboundFile[]) : [];
  });
}
