import { Engine } from "@switchboard/core";
import { chunkMarkdown } from "@switchboard/core/adapter";
import { longAnswerPieces, scriptedResponder, streamedAnswer, waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { createMatrixAdapter } from "../packages/matrix/src/index.ts";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";
import { relatesOf } from "./support/matrix/events.ts";
import type { RoomEvent } from "./support/matrix/homeserver-state.ts";

const bots = useMatrixBots();

const say = (body: string) =>
  bots.world.homeserver.userSends(bots.world.dm, bots.world.alice, { msgtype: "m.text", body });
const botEvents = () => bots.world.homeserver.eventsFrom(bots.world.bot);
const isEdit = (event: RoomEvent) => relatesOf(event).rel_type === "m.replace";
/** The bot's messages (not edits) that answer `question`. */
const answersTo = (question: string) =>
  botEvents().filter((event) => !isEdit(event) && relatesOf(event)["m.in_reply_to"]?.event_id === question);
/** What a client that renders edits shows for a message: the latest edit's new content. */
function shownText(message: RoomEvent): string {
  const edits = botEvents().filter(
    (event) => isEdit(event) && relatesOf(event).event_id === message.event_id,
  );
  const latest = edits.at(-1)?.content["m.new_content"] as { body?: string } | undefined;
  return latest?.body ?? String(message.content.body);
}

describe("matrix streaming", () => {
  it("shows the answer as it is written with m.replace edits, ending exact, within the room's rate limit", async () => {
    const pieces = longAnswerPieces(60);
    const answer = pieces.join("");
    const [whole = ""] = chunkMarkdown(answer, 4_000);
    let lastPieceAt = 0;
    const write = streamedAnswer({ pieces, paceMs: 20 });
    await bots.start({
      answerTurn: async (turn) => {
        const text = await write(turn);
        lastPieceAt = Date.now();
        return text;
      },
    });
    const question = say("tell me everything");
    const [first] = await waitFor(
      "the first streamed text",
      () => answersTo(question)[0] && answersTo(question),
    );
    const visibleAt = Date.now();
    await waitFor(
      "the complete answer",
      () => (first && shownText(first) === whole ? true : undefined),
      20_000,
    );

    expect(visibleAt).toBeLessThan(lastPieceAt);
    expect(answersTo(question).map(shownText)).toEqual(chunkMarkdown(answer, 4_000));
    const edits = botEvents().filter(isEdit);
    expect(edits.length).toBeGreaterThan(1);
    // Clients without edit support see the latest edit's fallback: the whole answer, marked as an edit.
    expect(edits.at(-1)?.content.body).toBe(`* ${whole}`);
    // The edits replace; the thread/reply relation stays on the original message.
    expect(edits.every((edit) => relatesOf(edit)["m.in_reply_to"] === undefined)).toBe(true);
    expect(bots.world.homeserver.messageRate.breaches).toEqual([]);
  });

  it("after a stop in the middle of a stream, the restarted bot finishes the same message: one complete answer", async () => {
    const pieces = longAnswerPieces(40);
    const [answer = ""] = chunkMarkdown(pieces.join(""), 4_000);
    const first = await bots.start({ answerTurn: streamedAnswer({ pieces, paceMs: 40 }) });
    const question = say("a long story please");
    await waitFor("the first streamed text", () => answersTo(question)[0]);
    // Gone mid-answer; the turn stays queued for the next start.
    await first.stop();
    const partial = answersTo(question);
    expect(partial).toHaveLength(1);
    expect(partial[0] && shownText(partial[0])).not.toBe(answer);

    // The restart: a new engine on the same store picks the queued turn up as it starts.
    const adapter = await createMatrixAdapter(
      { homeserverUrl: bots.world.homeserver.url, accessToken: "bot-token", syncTimeoutMs: 5_000 },
      { store: bots.store },
    );
    const responder = scriptedResponder(streamedAnswer({ pieces, paceMs: 5 }));
    const restarted = new Engine({ store: bots.store, adapters: [adapter], responder });
    await restarted.start();
    try {
      await waitFor(
        "the complete answer",
        () => {
          const [message] = answersTo(question);
          return message && shownText(message) === answer ? true : undefined;
        },
        20_000,
      );
      await restarted.idle();
      expect(responder.turns.map((turn) => turn.message.id)).toEqual([question]);
      expect(answersTo(question)).toHaveLength(1);
    } finally {
      await restarted.stop();
    }
  });
});
