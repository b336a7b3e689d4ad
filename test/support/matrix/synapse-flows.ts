/**
 * Flows the Matrix tests on a real Synapse run in plain and in encrypted rooms alike: a streamed
 * answer shown by edits, and an approval decided by a ✅ reaction. What differs between the two is
 * only what the assertions add (the wire type of every event).
 */
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { expect } from "vitest";
import { createMatrixAdapter, type MatrixAdapter } from "../../../packages/matrix/src/index.ts";
import type { RegisteredUser } from "../../services/synapse-service.ts";
import { APPROVED_ANSWER, startApprovalTeam } from "../approval-scenario.ts";
import type { E2eeClient, SeenEvent } from "./e2ee-client.ts";
import { streamedPieces } from "./synapse-bot.ts";

const relationOf = (event: SeenEvent) =>
  (event.content["m.relates_to"] ?? {}) as { rel_type?: string; event_id?: string };

/**
 * Asks `stream: 12` and follows the answer: its first event, then `m.replace` edits until it shows
 * the whole text. Returns the answer's first event and its edits.
 */
export async function followStreamedAnswer(
  alice: E2eeClient,
  roomId: string,
  botUserId: string,
  ask: (text: string) => Promise<string>,
): Promise<{ question: string; first: SeenEvent; edits: SeenEvent[] }> {
  const whole = streamedPieces(12).join("");
  const question = await ask("stream: 12");
  const first = await alice.waitForMessage(roomId, botUserId, /^Sentence 1 /);
  await waitFor(
    "the streamed answer to be whole",
    async () =>
      (await alice.shown(roomId, first)) === whole.trim() || (await alice.shown(roomId, first)) === whole,
    30_000,
  );
  const edits = (await alice.seen(roomId)).filter(
    (event) =>
      event.sender === botUserId &&
      relationOf(event).rel_type === "m.replace" &&
      relationOf(event).event_id === first.eventId,
  );
  // Shown as it was written: more than one edit, the last one the whole answer.
  expect(edits.length).toBeGreaterThan(1);
  expect(edits.at(-1)?.content.body).toMatch(/^\* Sentence 1 /);
  return { question, first, edits };
}

/**
 * A second bot account running the approval team (asked for a refund, it calls a tool that waits
 * for ✅ / ❌); Alice asks it in a group room, approves by reacting ✅ on the prompt, and the refund
 * runs once. Returns the prompt, the answer, and the room.
 */
export async function approveByReaction(options: {
  readonly alice: E2eeClient;
  readonly homeserverUrl: string;
  readonly approver: RegisteredUser;
  readonly encrypted: boolean;
}): Promise<{ room: string; prompt: SeenEvent; answer: SeenEvent; stop(): Promise<void> }> {
  const { alice, approver, encrypted } = options;
  const store: Store = await openStore("memory://");
  const adapter: MatrixAdapter = await createMatrixAdapter(
    {
      homeserverUrl: options.homeserverUrl,
      accessToken: approver.accessToken,
      displayName: "Approver",
      syncTimeoutMs: 2_000,
      streaming: "off",
      encryption: encrypted,
    },
    { store },
  );
  const team = await startApprovalTeam(adapter, { store });
  const stop = async () => {
    await team.stop();
    await store.close();
  };
  try {
    const room = await alice.createRoom([approver.userId], { name: "refunds", encrypted });
    await alice.waitForJoin(room, approver.userId);
    await alice.send(room, "Approver: refund my 40 EUR", { mentions: [approver.userId] });
    const prompt = await alice.waitForMessage(room, approver.userId, /wants to run/);
    // The bot seeds ✅ and ❌, so a person only has to click one.
    await waitFor(
      "the seeded reactions",
      async () =>
        (await alice.seen(room)).filter(
          (event) =>
            event.sender === approver.userId &&
            event.type === "m.reaction" &&
            relationOf(event).event_id === prompt.eventId,
        ).length === 2,
      30_000,
    );
    await alice.react(room, prompt.eventId, "✅");
    const answer = await alice.waitForMessage(
      room,
      approver.userId,
      new RegExp(`^${APPROVED_ANSWER.replace(/\./g, "\\.")}$`),
    );
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    await waitFor(
      "the prompt to say who approved",
      async () => (await alice.shown(room, prompt)).endsWith(`✅ Approved by ${alice.userId}`),
      30_000,
    );
    return { room, prompt, answer, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
