import { MemorySaver } from "@langchain/langgraph";
import { openStore } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createMatrixAdapter, type MatrixAdapter } from "../packages/matrix/src/index.ts";
import {
  APPROVED_ANSWER,
  DENIED_ANSWER,
  type Refunds,
  startApprovalTeam,
} from "./support/approval-scenario.ts";
import { createWorld, type MatrixWorld } from "./support/matrix/bot-fixture.ts";
import { botMention, relatesOf } from "./support/matrix/events.ts";
import type { RoomEvent } from "./support/matrix/homeserver-state.ts";

const isEdit = (event: RoomEvent) => relatesOf(event).rel_type === "m.replace";

describe("Matrix approval reactions (real matrix-bot-sdk against the stand-in)", () => {
  let world: MatrixWorld;
  let team: Awaited<ReturnType<typeof startApprovalTeam<MatrixAdapter>>> | undefined;
  afterEach(async () => {
    await team?.stop();
    await world?.homeserver.close();
  });

  const botMessages = () => world.homeserver.eventsFrom(world.bot);
  /** What a client that renders edits shows for a bot message. */
  const shown = (message: RoomEvent) => {
    const latest = botMessages()
      .filter((event) => isEdit(event) && relatesOf(event).event_id === message.event_id)
      .at(-1)?.content["m.new_content"] as { body?: string } | undefined;
    return latest?.body ?? String(message.content.body);
  };
  const answered = (text: string) =>
    waitFor(`the answer "${text}"`, () => botMessages().some((event) => event.content.body === text));

  async function askForARefund() {
    world = await createWorld();
    const adapter = await createMatrixAdapter({
      homeserverUrl: world.homeserver.url,
      accessToken: "bot-token",
      syncTimeoutMs: 5_000,
    });
    team = await startApprovalTeam(adapter);
    const root = world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      ...botMention(world.bot, "Switchboard", "refund my 40 EUR"),
    });
    // Streamed: the answer's message is edited into the prompt; not streamed, it is posted as one.
    const prompt = await waitFor("the approval prompt", () =>
      botMessages().find((event) => !isEdit(event) && shown(event).includes("wants to run")),
    );
    // The bot seeds ✅ and ❌ so a person only has to click one.
    const seeded = await waitFor("the seeded reactions", () => {
      const keys = world.homeserver
        .eventsFrom(world.bot, "m.reaction")
        .filter((event) => relatesOf(event).event_id === prompt.event_id)
        .map((event) => (event.content["m.relates_to"] as { key: string }).key);
      return keys.length === 2 ? keys : undefined;
    });
    expect(seeded).toEqual(["✅", "❌"]);
    return { root, prompt, team };
  }

  it("✅ by the requester: the action runs once, the prompt is edited to say who approved, the answer follows", async () => {
    const { prompt, team } = await askForARefund();
    expect(relatesOf(prompt).rel_type).toBe("m.thread");
    expect(shown(prompt)).toContain("React ✅ to approve or ❌ to deny.");
    world.homeserver.userReacts(world.group, world.alice, prompt.event_id, "✅");
    await answered(APPROVED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    expect(shown(prompt)).toMatch(new RegExp(`\\n\\n✅ Approved by ${world.alice}$`));
    expect(shown(prompt)).not.toContain("React ✅");
  });

  it("❌ by the requester: the action never runs, the prompt says who denied", async () => {
    const { prompt, team } = await askForARefund();
    world.homeserver.userReacts(world.group, world.alice, prompt.event_id, "❌");
    await answered(DENIED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([]);
    expect(shown(prompt)).toMatch(/❌ Denied by @alice:/);
  });

  it("someone else reacting gets a notice in the thread naming who may decide, and nothing happens", async () => {
    const { root, prompt, team } = await askForARefund();
    world.homeserver.userReacts(world.group, world.bob, prompt.event_id, "✅");
    const notice = await waitFor("the notice", () =>
      botMessages().find((event) => String(event.content.body).startsWith("Only ")),
    );
    expect(notice.content.body).toBe(`Only ${world.alice} (or an admin) can approve or deny this.`);
    expect(relatesOf(notice)).toMatchObject({ rel_type: "m.thread", event_id: root });
    expect(notice.content["m.mentions"]).toEqual({});
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([]);
    expect((await team.tracking.tracker.byOrigin(root))?.status).toBe("awaiting_approval");
  });

  it("decided by typing: the prompt is edited to say the outcome all the same", async () => {
    const { root, prompt, team } = await askForARefund();
    world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      body: "!approve",
      "m.relates_to": {
        rel_type: "m.thread",
        event_id: root,
        is_falling_back: true,
        "m.in_reply_to": { event_id: root },
      },
    });
    await answered(APPROVED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    expect(shown(prompt)).toMatch(/wants to run[\s\S]*\n\n✅ Approved by /);
  });

  it("after a restart, a ✅ on a prompt posted before it still decides (streamed prompts included)", async () => {
    world = await createWorld();
    const store = await openStore("memory://");
    const refunds: Refunds = { amounts: [] };
    const checkpointer = new MemorySaver();
    const start = async () => {
      const adapter = await createMatrixAdapter(
        { homeserverUrl: world.homeserver.url, accessToken: "bot-token", syncTimeoutMs: 5_000 },
        { store },
      );
      return startApprovalTeam(adapter, { store, refunds, checkpointer });
    };
    const before = await start();
    world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      ...botMention(world.bot, "Switchboard", "refund my 40 EUR"),
    });
    const prompt = await waitFor("the approval prompt", () =>
      botMessages().find((event) => !isEdit(event) && shown(event).includes("wants to run")),
    );
    await waitFor(
      "the seeded reactions",
      () => world.homeserver.eventsFrom(world.bot, "m.reaction").length === 2,
    );
    await before.engine.idle();
    await before.stop();

    team = await start();
    world.homeserver.userReacts(world.group, world.alice, prompt.event_id, "✅");
    await answered(APPROVED_ANSWER);
    await team.engine.idle();
    expect(refunds.amounts).toEqual([40]);
    expect(shown(prompt)).toMatch(/✅ Approved by @alice:/);
    const stopping = team;
    team = undefined;
    await stopping.stop();
    await store.close();
  });

  it("✅ and ❌ from the requester, and a redelivered reaction: decided once, by the first", async () => {
    const { prompt, team } = await askForARefund();
    const approve = world.homeserver.userReacts(world.group, world.alice, prompt.event_id, "✅");
    world.homeserver.userReacts(world.group, world.alice, prompt.event_id, "❌");
    world.homeserver.state.redeliver(world.group, approve);
    await answered(APPROVED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    expect(botMessages().filter((event) => event.content.body === APPROVED_ANSWER)).toHaveLength(1);
    expect(botMessages().filter((event) => event.content.body === DENIED_ANSWER)).toHaveLength(0);
    const outcomes = botMessages()
      .filter((event) => isEdit(event) && relatesOf(event).event_id === prompt.event_id)
      .map((event) => (event.content["m.new_content"] as { body: string }).body)
      .filter((body) => /(Approved|Denied) by/.test(body));
    expect(outcomes).toEqual([expect.stringMatching(/✅ Approved by @alice:/)]);
  });
});
