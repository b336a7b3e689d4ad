import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Adapter } from "../conversation/adapter.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import { type ConversationRef, decodeConversationKey, encodeConversationKey } from "../conversation/ref.ts";
import { Engine } from "../engine/engine.ts";
import type { AcceptOutcome } from "../engine/intake.ts";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { scriptedResponder } from "./responders.ts";
import { waitFor } from "./wait.ts";

/** Where a simulated user writes. */
export type SimulatedPlace = "channel" | "dm" | { readonly conversation: ConversationRef };

export interface SimulatedMessage {
  readonly place: SimulatedPlace;
  readonly text: string;
  /** Mention the bot the platform's usual way. */
  readonly mention?: boolean;
  /** Reply to this platform message id (outside any thread when place is "channel"). */
  readonly replyTo?: string;
  readonly from?: "user" | "self" | "other-bot";
}

/** What the platform stand-in saw the bot post, mapped back to our terms. */
export interface ObservedPost {
  readonly id: string;
  readonly conversation: ConversationRef;
  readonly replyTo?: string;
  /** The posted text as the platform stores it (HTML, mrkdwn…). */
  readonly text: string;
}

/** What an adapter package provides to run the contract against itself, through its real SDK and stand-in. */
export interface AdapterHarness {
  readonly adapter: Adapter;
  /** Every conversation shape the adapter produces (thread, DM, channel…), for key round-trips. */
  readonly sampleConversations: readonly ConversationRef[];
  /** The platform's own hard limit on one posted message, in the unit `measure` returns. */
  readonly platformMessageLimit: number;
  measure(postedText: string): number;
  /** Makes the stand-in deliver a user's message to the adapter; returns the platform message id. */
  userSays(message: SimulatedMessage): Promise<string>;
  /** Makes the stand-in deliver the last event again, as the platform does on a retry. */
  redeliverLast(): Promise<void>;
  posts(): readonly ObservedPost[];
  close(): Promise<void>;
}

const TEXT_FOR_LONG = (limit: number) => {
  const words = Array.from({ length: Math.ceil((limit * 2.5) / 8) }, (_, i) => `word${i}`).join(" ");
  const code = Array.from({ length: Math.ceil(limit / 40) }, (_, i) => `let value${i} = compute(${i});`).join(
    "\n",
  );
  return `${words}\n\n\`\`\`js\n${code}\n\`\`\`\nend.`;
};

/**
 * The adapter contract: every platform package runs this against itself. It drives the adapter
 * through a real engine (in-memory store) and checks what users would notice.
 */
export function runAdapterContract(name: string, createHarness: () => Promise<AdapterHarness>): void {
  describe(`adapter contract: ${name}`, () => {
    let harness: AdapterHarness;
    let store: Store;
    let engine: Engine;
    const outcomes: { message: InboundMessage; outcome: AcceptOutcome }[] = [];
    let longAnswer = "";
    const responder = scriptedResponder((turn) =>
      turn.text.includes("long please") ? longAnswer : `echo: ${turn.text}`,
    );

    beforeAll(async () => {
      harness = await createHarness();
      store = await openStore("memory://");
      longAnswer = TEXT_FOR_LONG(harness.adapter.limits.maxMessageLength);
      engine = new Engine({ store, adapters: [harness.adapter], responder });
      await harness.adapter.start(async (message) => {
        outcomes.push({ message, outcome: await engine.accept(message) });
      });
    });
    afterAll(async () => {
      await harness?.close();
      await store?.close();
    });

    const outcomeOf = (id: string) =>
      waitFor(`the adapter to hand message ${id} to the engine`, () =>
        outcomes
          .filter((entry) => entry.message.id === id)
          .map((entry) => entry.outcome)
          .at(-1),
      );
    const answersTo = (id: string) => harness.posts().filter((post) => post.replyTo === id);
    // A platform shows a post before the engine has finished recording it; users read, then type.
    const answerTo = async (id: string) => {
      const answer = await waitFor(`an answer to ${id}`, () => answersTo(id)[0]);
      await engine.idle();
      return answer;
    };

    it("round-trips every conversation key it produces", () => {
      expect(harness.sampleConversations.length).toBeGreaterThan(0);
      for (const ref of harness.sampleConversations) {
        expect(ref.platform).toBe(harness.adapter.platform);
        expect(decodeConversationKey(encodeConversationKey(ref))).toEqual(ref);
      }
    });

    it("answers a mention in a channel inside the mention's conversation, as a reply to it", async () => {
      const id = await harness.userSays({ place: "channel", text: "hello there", mention: true });
      const outcome = await outcomeOf(id);
      expect(outcome.accepted).toBe(true);
      const answer = await answerTo(id);
      expect(answer.text).toContain("hello there");
      const inbound = outcomes.find((entry) => entry.message.id === id)?.message;
      expect(inbound && encodeConversationKey(answer.conversation)).toBe(
        inbound && encodeConversationKey(inbound.conversation),
      );
    });

    it("continues a conversation it takes part in without a mention", async () => {
      const first = await harness.userSays({ place: "channel", text: "start a thread", mention: true });
      const { conversation } = await answerTo(first);
      const followUp = await harness.userSays({ place: { conversation }, text: "and a follow-up" });
      const answer = await answerTo(followUp);
      expect(encodeConversationKey(answer.conversation)).toBe(encodeConversationKey(conversation));
    });

    it("continues the conversation of a bot message a user replies to", async () => {
      const first = await harness.userSays({ place: "channel", text: "question one", mention: true });
      const botMessage = await answerTo(first);
      const reply = await harness.userSays({
        place: "channel",
        text: "about that answer",
        replyTo: botMessage.id,
      });
      const answer = await answerTo(reply);
      expect(encodeConversationKey(answer.conversation)).toBe(encodeConversationKey(botMessage.conversation));
    });

    it("answers a direct message without a mention", async () => {
      const id = await harness.userSays({ place: "dm", text: "a private question" });
      expect((await answerTo(id)).text).toContain("a private question");
    });

    it("stays quiet in a channel when not addressed", async () => {
      const id = await harness.userSays({ place: "channel", text: "people talking among themselves" });
      expect(await outcomeOf(id)).toEqual({ accepted: false, reason: "not-addressed" });
    });

    it("ignores its own messages and other bots' messages", async () => {
      const own = await harness.userSays({ place: "dm", text: "my own words", from: "self" });
      const bot = await harness.userSays({ place: "dm", text: "another bot", from: "other-bot" });
      // An adapter may drop these before the engine sees them; either way nothing is answered.
      const settle = await harness.userSays({ place: "dm", text: "marker after bots" });
      await answerTo(settle);
      expect(answersTo(own)).toEqual([]);
      expect(answersTo(bot)).toEqual([]);
    });

    it("answers a redelivered message once", async () => {
      const id = await harness.userSays({ place: "dm", text: "say this once" });
      await answerTo(id);
      await harness.redeliverLast();
      const marker = await harness.userSays({ place: "dm", text: "marker after redelivery" });
      await answerTo(marker);
      expect(answersTo(id)).toHaveLength(1);
    });

    it("splits a long answer into messages within the platform's limit, code blocks intact, nothing lost", async () => {
      const id = await harness.userSays({ place: "dm", text: "long please" });
      await waitFor("every chunk of the long answer", () =>
        answersTo(id).some((post) => post.text.includes("end.")),
      );
      const parts = answersTo(id);
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts)
        expect(harness.measure(part.text)).toBeLessThanOrEqual(harness.platformMessageLimit);
      const all = parts.map((part) => part.text).join("\n");
      for (const word of [
        "word0",
        "word100",
        "value0",
        `value${Math.ceil(harness.adapter.limits.maxMessageLength / 40) - 1}`,
      ]) {
        expect(all).toContain(word);
      }
      expect(new Set(parts.map((part) => encodeConversationKey(part.conversation))).size).toBe(1);
    });

    it("runs chat commands before any model call", async () => {
      const before = responder.turns.length;
      const id = await harness.userSays({ place: "dm", text: "/help" });
      expect((await answerTo(id)).text).toMatch(/stop/);
      expect(responder.turns.length).toBe(before);
    });
  });
}
