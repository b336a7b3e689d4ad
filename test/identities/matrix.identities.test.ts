import { teamConfigSchema } from "@switchboard/core/config";
import { teamIdentities } from "@switchboard/core/host";
import { waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { useMatrixBots } from "../support/matrix/bot-lifecycle.ts";
import { SUPPORT_IDENTITIES, streamedAs } from "../support/team-identities.ts";

const bots = useMatrixBots();
const { start } = bots;

const say = (body: string) =>
  bots.world.homeserver.userSends(bots.world.dm, bots.world.alice, { msgtype: "m.text", body });
const botMessages = () => bots.world.homeserver.eventsFrom(bots.world.bot);
const memberEvents = () =>
  bots.world.homeserver
    .eventsFrom(bots.world.bot, "m.room.member")
    .filter((event) => event.state_key === bots.world.bot && event.room_id === bots.world.dm);

describe("agent identities on Matrix (matrix-bot-sdk against the homeserver stand-in)", () => {
  it("puts the agent's name in front of the plain and the formatted body", async () => {
    await start({
      identities: SUPPORT_IDENTITIES,
      answerTurn: async () => ({ text: "Your invoice is paid.", agent: "billing" }),
    });
    say("is my invoice paid?");
    const [answer] = await waitFor("the answer", () =>
      botMessages().length > 0 ? botMessages() : undefined,
    );

    expect(answer?.content).toMatchObject({
      body: "**Billing:** Your invoice is paid.",
      format: "org.matrix.custom.html",
      formatted_body: "<p><strong>Billing:</strong> Your invoice is paid.</p>",
    });
    // A team of several agents keeps the bot's own name in the room.
    expect(memberEvents().filter((event) => event.content.displayname !== undefined)).toEqual([]);
  });

  it("keeps the name in front on every edit of a streamed answer, and in the final text", async () => {
    const pieces = [
      "The router ",
      "needs a ",
      "restart: ",
      "unplug it, ",
      "wait a ",
      "little, ",
      "plug it in, ",
      "hold the button ",
      "for ten ",
      "seconds.",
    ];
    await start({
      identities: SUPPORT_IDENTITIES,
      config: { streamEditIntervalMs: 250 },
      answerTurn: streamedAs("tech_support", pieces),
    });
    say("my wifi is down");
    await waitFor("the final edit", () =>
      botMessages().find(
        (event) =>
          (event.content["m.new_content"] as { body?: string } | undefined)?.body ===
          `**Tech support:** ${pieces.join("")}`,
      ),
    );

    const [first, ...edits] = botMessages();
    expect(first?.content.body).toMatch(/^\*\*Tech support:\*\* The router/);
    expect(edits.length).toBeGreaterThan(1);
    for (const edit of edits) {
      const shown = edit.content["m.new_content"] as { body: string; formatted_body?: string };
      expect(shown.body.startsWith("**Tech support:** ")).toBe(true);
      expect(shown.formatted_body?.startsWith("<p><strong>Tech support:</strong> ")).toBe(true);
    }
  });

  it("a team of one agent shows its name as the bot's display name in the room, with no prefix", async () => {
    const solo = teamIdentities(
      teamConfigSchema.parse({ supervisor: { prompt: "Help.", display: { name: "Concierge" } } }),
    );
    await start({
      identities: solo,
      answerTurn: async () => ({ text: "Happy to help.", agent: "supervisor" }),
    });
    say("hello");
    await waitFor("the answer", () => botMessages()[0]);
    say("and again");
    await waitFor("the second answer", () => botMessages()[1]);

    expect(botMessages().map((event) => event.content.body)).toEqual(["Happy to help.", "Happy to help."]);
    const named = memberEvents().filter((event) => event.content.displayname === "Concierge");
    // Set once, before the first answer, and still joined.
    expect(named).toHaveLength(1);
    expect(named[0]?.content.membership).toBe("join");
  });
});
