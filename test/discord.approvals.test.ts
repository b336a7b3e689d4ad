import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../packages/discord/src/index.ts";
import { APPROVED_ANSWER, DENIED_ANSWER, startApprovalTeam } from "./support/approval-scenario.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";
import { componentsOf } from "./support/discord/payloads.ts";
import type { MessageRecord } from "./support/discord/records.ts";

const EPHEMERAL = 1 << 6;

const buttonIds = (message: MessageRecord) =>
  (componentsOf(message) as { components?: { custom_id?: string }[] }[])
    .flatMap((row) => row.components ?? [])
    .map((button) => button.custom_id ?? "");

describe("Discord approval buttons (real discord.js against the stand-in)", () => {
  let fake: FakeDiscord;
  let team: Awaited<ReturnType<typeof startApprovalTeam<DiscordAdapter>>> | undefined;
  afterEach(async () => {
    await team?.stop();
    await fake?.close();
  });

  async function askForARefund() {
    fake = await FakeDiscord.start();
    const adapter = await createDiscordAdapter({
      token: fake.token,
      apiUrl: fake.apiUrl,
      commandGuildIds: [fake.world.guildId],
    });
    team = await startApprovalTeam(adapter);
    const root = fake.say({ content: `${fake.mention} refund my 40 EUR` });
    const prompt = await waitFor("the approval prompt with buttons", () =>
      fake.botMessages().find((message) => buttonIds(message).length > 0),
    );
    const [approve = "", deny = ""] = buttonIds(prompt);
    return { root, prompt, approve, deny, team };
  }

  const answered = (text: string) =>
    waitFor(`the answer "${text}"`, () => fake.botMessages().some((message) => message.content === text));
  const ephemeralReplies = () =>
    fake.botMessages().filter((message) => (message.flags & EPHEMERAL) !== 0 && message.interaction);

  it("Approve by the requester: the action runs once, the buttons give way to who approved, the answer follows", async () => {
    const { prompt, approve, team } = await askForARefund();
    expect(prompt.content).toContain("wants to run");
    expect(approve).toMatch(/^switchboard:approve:/);
    const press = fake.press(prompt, approve);
    await answered(APPROVED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    expect(press.callback?.type).toBe(7);
    expect(buttonIds(prompt)).toEqual([]);
    expect(prompt.content).toMatch(new RegExp(`\\n\\n✅ Approved by <@${fake.world.ada.id}>$`));
    expect(prompt.pings).toEqual([]);
    expect(ephemeralReplies()).toEqual([]);
  });

  it("Deny: the action never runs, the prompt says who denied, the agent answers without it", async () => {
    const { prompt, deny, team } = await askForARefund();
    fake.press(prompt, deny);
    await answered(DENIED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([]);
    expect(prompt.content).toMatch(/❌ Denied by <@\d+>$/);
    expect(buttonIds(prompt)).toEqual([]);
  });

  it("someone else pressing gets an ephemeral 'only … can approve this', and nothing happens", async () => {
    const { root, prompt, approve, team } = await askForARefund();
    const press = fake.press(prompt, approve, fake.world.grace);
    const refusal = await waitFor("the ephemeral refusal", () => ephemeralReplies()[0]);
    expect(press.callback).toMatchObject({ type: 4, flags: EPHEMERAL });
    expect(refusal.content).toBe(`Only <@${fake.world.ada.id}> (or an admin) can approve or deny this.`);
    expect(refusal.pings).toEqual([]);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([]);
    expect(buttonIds(prompt)).toHaveLength(2);
    expect((await team.tracking.tracker.byOrigin(root.id))?.status).toBe("awaiting_approval");
  });

  it("decided by typing: the buttons are removed and the outcome shown all the same", async () => {
    const { root, prompt, team } = await askForARefund();
    const thread = await waitFor("the answer's thread", () => fake.thread(root.id));
    fake.say({ content: "!deny", channel: thread });
    await answered(DENIED_ANSWER);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([]);
    expect(buttonIds(prompt)).toEqual([]);
    expect(prompt.content).toMatch(/wants to run[\s\S]*\n\n❌ Denied by ada$/);
  });

  it("pressed twice: decided and run once, the second press is told privately it was already decided", async () => {
    const { prompt, approve, team } = await askForARefund();
    const first = fake.press(prompt, approve);
    const second = fake.press(prompt, approve);
    await answered(APPROVED_ANSWER);
    await waitFor("both presses answered", () => first.callback && second.callback);
    await team.engine.idle();
    expect(team.refunds.amounts).toEqual([40]);
    expect(fake.botMessages().filter((message) => message.content === APPROVED_ANSWER)).toHaveLength(1);
    expect([first.callback?.type, second.callback?.type].sort()).toEqual([4, 7]);
    expect(ephemeralReplies().map((message) => message.content)).toEqual([
      expect.stringMatching(
        /^(This was already decided: ✅ Approved by .+|This is no longer waiting for a decision\.)$/,
      ),
    ]);
  });
});
