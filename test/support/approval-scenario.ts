import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { openStore, type Store } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import type { CatalogEntry } from "@switchboard/core/host";
import { z } from "zod";
import { scriptedTeamModel } from "./memory-harness.ts";
import { startTrackingHarness } from "./tracking-harness.ts";

/** What a refund that waits for approval did: the amounts it actually refunded. */
export interface Refunds {
  readonly amounts: number[];
}

function refundTool(refunds: Refunds): CatalogEntry {
  return {
    tool: tool(
      async ({ amount }) => {
        refunds.amounts.push(amount);
        return `refunded ${amount}`;
      },
      { name: "refund", description: "refund a payment", schema: z.object({ amount: z.number() }) },
    ),
    requiresApproval: true,
  };
}

export const APPROVED_ANSWER = "Done: 40 EUR refunded.";
export const DENIED_ANSWER = "Understood, no refund.";

/**
 * The agent, by what it sees (no script position: any instance can take any run): asked, it calls
 * `refund`; after the tool's result — or the note that the action was denied — it answers.
 */
function refundAgent(messages: BaseMessage[]): AIMessage {
  const last = messages.at(-1);
  if (last && ToolMessage.isInstance(last))
    return new AIMessage(
      String(last.content).includes("denied this action") ? DENIED_ANSWER : APPROVED_ANSWER,
    );
  return new AIMessage({
    content: "",
    tool_calls: [{ id: randomUUID(), name: "refund", args: { amount: 40 }, type: "tool_call" }],
  });
}

export interface ApprovalTeamOptions {
  readonly admins?: string[];
  /** Shared by instances of one deployment; a fresh in-memory store (closed at stop) by default. */
  readonly store?: Store;
  readonly refunds?: Refunds;
  readonly checkpointer?: BaseCheckpointSaver;
  /** How the agent shows itself (its `display` in the team config). */
  readonly display?: { readonly name: string; readonly icon?: string };
}

/**
 * The team behind the approval tests on every platform: asked for a refund, the agent calls the
 * `refund` tool, which waits for Approve / Deny; after the decision it answers by what happened.
 */
export async function startApprovalTeam<A extends Adapter>(adapter: A, options: ApprovalTeamOptions = {}) {
  const ownStore = options.store === undefined;
  const store: Store = options.store ?? (await openStore("memory://"));
  const refunds: Refunds = options.refunds ?? { amounts: [] };
  const harness = await startTrackingHarness({
    store,
    model: scriptedTeamModel(refundAgent, 50),
    adapter,
    checkpointer: options.checkpointer ?? new MemorySaver(),
    catalog: [refundTool(refunds)],
    supervisorTools: ["refund"],
    admins: options.admins ?? [],
    ...(options.display ? { display: options.display } : {}),
  });
  return {
    ...harness,
    refunds,
    async stop() {
      await harness.stop();
      if (ownStore) await store.close();
    },
  };
}
