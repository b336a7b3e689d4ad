import type { InboundMessage } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../packages/slack/src/slack-adapter.ts";
import { openSharedStore, SHARED_BACKENDS, type SharedStore } from "./support/shared-store.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { ALICE, ELSEWHERE, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";

describe.each(SHARED_BACKENDS)(
  "Slack slash commands answered by a worker (Bolt and the Web API client against the stand-in; store: %s)",
  (backend) => {
    let slack: FakeSlack;
    let shared: SharedStore;
    const adapters: SlackAdapter[] = [];
    afterEach(async () => {
      for (const adapter of adapters.splice(0)) await adapter.stop();
      await slack?.close();
      await shared?.close();
    });

    /** The ingress takes Slack's requests; the worker, on the same store, only sends. */
    async function ingressAndWorker(options: { ingressStore?: boolean } = {}) {
      slack = await FakeSlack.start({ transport: "http" });
      shared = await openSharedStore(backend, "slack-worker-slash");
      const received: InboundMessage[] = [];
      const ingress = new SlackAdapter(
        slack.adapterConfig(),
        options.ingressStore === false ? {} : { store: shared.ingress },
      );
      adapters.push(ingress);
      await ingress.start(async (message) => void received.push(message));
      slack.connectHttp(() => ingress.port);
      const worker = new SlackAdapter(slack.adapterConfig(), { store: shared.worker });
      adapters.push(worker);
      await worker.startSendOnly();
      return { worker, received };
    }

    async function use(received: InboundMessage[], channel: string, text: string) {
      const delivery = await slack.slashCommand(channel, text);
      expect(delivery.status).toBe(200);
      return waitFor("the command handed to the engine", () => received.at(-1));
    }

    it("answers a command used where the bot is not a member through its response_url", async () => {
      const { worker, received } = await ingressAndWorker();
      const command = await use(received, ELSEWHERE, "status");
      expect(command.conversation.path).toEqual([TEAM_ID, ELSEWHERE, `@${ALICE}`]);

      await worker.post({
        conversation: command.conversation,
        text: "Agent: **billing**",
        replyTo: command.id,
      });

      expect(slack.state.ephemeral).toEqual([
        expect.objectContaining({
          channel: ELSEWHERE,
          user: ALICE,
          via: "response_url",
          text: "Agent: *billing*",
        }),
      ]);
      expect(slack.state.botMessages()).toEqual([]);
    });

    it("answers privately with chat.postEphemeral where the bot is a member, as before", async () => {
      const { worker, received } = await ingressAndWorker();
      const command = await use(received, GENERAL, "status");
      await worker.post({ conversation: command.conversation, text: "Agent: billing", replyTo: command.id });
      expect(slack.state.ephemeral).toEqual([
        expect.objectContaining({ channel: GENERAL, user: ALICE, via: "chat.postEphemeral" }),
      ]);
    });

    it("says why, and posts nothing, when the receiving process kept no response_url", async () => {
      const { worker, received } = await ingressAndWorker({ ingressStore: false });
      const command = await use(received, ELSEWHERE, "status");
      const failure = worker.post({
        conversation: command.conversation,
        text: "private",
        replyTo: command.id,
      });
      await expect(failure).rejects.toMatchObject({ name: "ResponseUrlUnavailableError" });
      await expect(failure).rejects.toThrow(/invite the bot/);
      expect(slack.state.ephemeral).toEqual([]);
      expect(slack.state.botMessages()).toEqual([]);
    });
  },
);
