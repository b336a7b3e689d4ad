import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { type Adapter, type CatalogEntry, openStore, type Store } from "@switchboard/core";
import { z } from "zod";
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
 * The team behind the approval tests on every platform: asked for a refund, the agent calls the
 * `refund` tool, which waits for Approve / Deny; after the decision it answers by what happened.
 */
export async function startApprovalTeam<A extends Adapter>(adapter: A, options: { admins?: string[] } = {}) {
  const store: Store = await openStore("memory://");
  const refunds: Refunds = { amounts: [] };
  const model = fakeModel()
    .respondWithTools([{ name: "refund", args: { amount: 40 }, id: "r1" }])
    .respond((messages) =>
      messages.some((message) => String(message.content).includes("denied this action"))
        ? new AIMessage(DENIED_ANSWER)
        : new AIMessage(APPROVED_ANSWER),
    );
  const harness = await startTrackingHarness({
    store,
    model,
    adapter,
    catalog: [refundTool(refunds)],
    supervisorTools: ["refund"],
    admins: options.admins ?? [],
  });
  return {
    ...harness,
    refunds,
    async stop() {
      await harness.stop();
      await store.close();
    },
  };
}
