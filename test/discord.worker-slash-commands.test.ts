import type { InboundMessage } from "@switchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/index.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../packages/discord/src/index.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";
import type { InteractionRecord } from "./support/discord/records.ts";
import { openSharedStore, SHARED_BACKENDS, type SharedStore } from "./support/shared-store.ts";

const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;

describe.each(SHARED_BACKENDS)(
  "Discord slash commands answered by a worker (real discord.js against the local Discord; store: %s)",
  (backend) => {
    let fake: FakeDiscord;
    let shared: SharedStore;
    const adapters: DiscordAdapter[] = [];
    afterEach(async () => {
      for (const adapter of adapters.splice(0)) await adapter.stop();
      await fake?.close();
      await shared?.close();
    });

    /** The ingress holds the gateway and receives the command; the worker, on the same store, answers it. */
    async function ingressAndWorker(options: { ingressStore?: boolean } = {}) {
      fake = await FakeDiscord.start();
      shared = await openSharedStore(backend, "discord-worker-slash");
      const config = { token: fake.token, apiUrl: fake.apiUrl, globalCommands: true };
      const received: InboundMessage[] = [];
      const ingress = await createDiscordAdapter(
        config,
        options.ingressStore === false ? {} : { store: shared.ingress },
      );
      adapters.push(ingress);
      await ingress.start(async (message) => void received.push(message));
      const worker = await createDiscordAdapter(config, { store: shared.worker });
      adapters.push(worker);
      await worker.startSendOnly();
      return { ingress, worker, received };
    }

    async function use(received: InboundMessage[], input: Parameters<FakeDiscord["slash"]>[0]) {
      const interaction = fake.slash(input);
      const command = await waitFor(`/${input.name} handed to the engine`, () =>
        received.find((message) => message.id === `interaction-${interaction.id}`),
      );
      return { interaction, command };
    }

    const messagesOf = (interaction: InteractionRecord) =>
      [interaction.originalMessageId, ...interaction.followUpIds].map((id) =>
        id === undefined ? undefined : fake.world.messages.get(id),
      );
    const channelRequests = () => [
      ...fake.requestsTo("POST", /^\/api\/v10\/channels\/\d+\/(messages|typing)$/),
      ...fake.requestsTo("PATCH", /^\/api\/v10\/channels\//),
    ];

    it("a private answer edits the deferred reply, then follows up privately, and grows by edits — nothing in the channel", async () => {
      const { worker, received } = await ingressAndWorker();
      const { interaction, command } = await use(received, { name: "status" });
      expect((interaction.callback?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);

      await worker.setTyping(command.conversation, true);
      const first = await worker.post({
        conversation: command.conversation,
        text: "Agent: billing",
        replyTo: command.id,
      });
      const second = await worker.post({
        conversation: command.conversation,
        text: "since 10:02",
        replyTo: command.id,
      });
      await worker.edit?.(second, "since 10:02 (3 messages)");
      await worker.setTyping(command.conversation, false);

      const [original, followUp, ...more] = messagesOf(interaction);
      expect(more).toEqual([]);
      expect(original).toMatchObject({ id: first.id, content: "Agent: billing" });
      expect((original?.flags ?? 0) & (EPHEMERAL | LOADING)).toBe(EPHEMERAL);
      expect(followUp).toMatchObject({ id: second.id, content: "since 10:02 (3 messages)" });
      expect((followUp?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
      const webhook = `/api/v10/webhooks/${fake.world.applicationId}/${interaction.token}`;
      expect(fake.requestsTo("PATCH", /^\/api\/v10\/webhooks\//).map((request) => request.path)).toEqual([
        `${webhook}/messages/@original`,
        `${webhook}/messages/${second.id}`,
      ]);
      expect(fake.requestsTo("POST", /^\/api\/v10\/webhooks\//).map((request) => request.path)).toEqual([
        webhook,
      ]);
      // Not a word in the channel, and nobody saw the bot "typing" there about a private answer.
      expect(channelRequests()).toEqual([]);
      expect(fake.botMessages().map((message) => message.id)).toEqual([first.id, second.id]);
    });

    it("a command used in a channel starts its own conversation: no typing there before the answer, which replaces the reply", async () => {
      const { worker, received } = await ingressAndWorker();
      const { interaction, command } = await use(received, {
        name: "supervisor",
        options: { message: "plan the launch" },
      });
      expect(command.conversation.path.at(-1)).toBe(interaction.originalMessageId);

      await worker.setTyping(command.conversation, true);
      await worker.setTyping(command.conversation, false);
      expect(fake.world.typing).toEqual([]);
      const answer = await worker.post({
        conversation: command.conversation,
        text: "First, the date.",
        replyTo: command.id,
      });

      expect(answer.id).toBe(interaction.originalMessageId);
      expect(fake.world.messages.get(answer.id)).toMatchObject({ content: "First, the date.", flags: 0 });
      expect(channelRequests()).toEqual([]);
    });

    it("after the receiving process answered, another one follows up and edits its answer, never overwriting it", async () => {
      const { ingress, worker, received } = await ingressAndWorker();
      const { interaction, command } = await use(received, {
        name: "supervisor",
        options: { message: "and the budget?" },
      });
      const first = await ingress.post({
        conversation: command.conversation,
        text: "Back to the supervisor.",
        replyTo: command.id,
      });
      const second = await worker.post({
        conversation: command.conversation,
        text: "The budget is…",
        replyTo: command.id,
      });
      await worker.edit?.(first, "Back to the supervisor (billing is done).");

      expect(first.id).toBe(interaction.originalMessageId);
      expect(interaction.followUpIds).toEqual([second.id]);
      expect(messagesOf(interaction).map((message) => message?.content)).toEqual([
        "Back to the supervisor (billing is done).",
        "The budget is…",
      ]);
      expect(channelRequests()).toEqual([]);
    });

    it("refuses the answer, rather than posting it in the open, when the receiving process kept no token", async () => {
      const { worker, received } = await ingressAndWorker({ ingressStore: false });
      const { interaction, command } = await use(received, { name: "memory" });
      await expect(
        worker.post({ conversation: command.conversation, text: "you like tea", replyTo: command.id }),
      ).rejects.toMatchObject({ name: "InteractionOutOfReachError" });
      expect(fake.world.messages.get(interaction.originalMessageId ?? "")?.content).toBe("");
      expect(channelRequests()).toEqual([]);
      expect(fake.requestsTo("PATCH", /^\/api\/v10\/webhooks\//)).toEqual([]);
    });
  },
);
