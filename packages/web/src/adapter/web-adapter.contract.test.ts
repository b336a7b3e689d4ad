import { type InboundMessage, openStore, silentLogger } from "@switchboard/core";
import type { Adapter, InboundSink } from "@switchboard/core/adapter";
import { type AdapterHarness, type ObservedPost, runAdapterContract } from "@switchboard/core/testing";
import { expect } from "vitest";
import { ConversationLog } from "../activity/conversation-log.ts";
import { LiveFeed } from "../activity/live-feed.ts";
import { recordedAdapter } from "../activity/recorded-adapter.ts";
import { PlatformActivity } from "../health/platform-activity.ts";
import { WebAdapter } from "./web-adapter.ts";

const SESSION = "contract-session";
const OPERATOR = { id: "operator-1", displayName: "Operator One" };

async function webHarness(
  wrap: (adapter: Adapter) => Adapter = (adapter) => adapter,
): Promise<AdapterHarness> {
  const web = new WebAdapter({ maxMessageLength: 2_000 });
  const posts: ObservedPost[] = [];
  const stopWatching = web.onPost((post) =>
    posts.push({
      id: post.id,
      conversation: post.conversation,
      text: post.text,
      ...(post.replyTo ? { replyTo: post.replyTo } : {}),
    }),
  );
  let last: InboundMessage | undefined;
  let engineSink: InboundSink | undefined;
  let unsent = 0;
  // Remember what reached the engine so a redelivery can hand it over again, as a retrying client would.
  const adapter: Adapter = {
    platform: web.platform,
    limits: web.limits,
    start: (sink) => {
      engineSink = sink;
      return web.start(async (message) => {
        last = message;
        await sink(message);
      });
    },
    stop: () => web.stop(),
    post: (message) => web.post(message),
    setTyping: (conversation, active) => web.setTyping(conversation, active),
  };
  const harness: AdapterHarness = {
    adapter: wrap(adapter),
    sampleConversations: [
      { platform: "web", path: [SESSION, "main"] },
      { platform: "web", path: [SESSION, "#general"] },
      { platform: "web", path: [SESSION, "#general/w-abc1"] },
      { platform: "web", path: ["a:b%c", "odd:thread"] },
    ],
    platformMessageLimit: 2_000,
    measure: (text) => text.length,
    async userSays(message) {
      // Only the operator writes in the web chat: nothing arrives from the bot itself or other bots.
      if (message.from && message.from !== "user") return `never-sent-${++unsent}`;
      const thread =
        message.place === "channel"
          ? "#general"
          : message.place === "dm"
            ? "main"
            : message.place.conversation.path[1];
      return web.send({
        session: SESSION,
        thread: thread ?? "main",
        text: message.mention ? `@bot ${message.text}` : message.text,
        author: OPERATOR,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      });
    },
    async redeliverLast() {
      if (!engineSink || !last) throw new Error("nothing delivered yet");
      await engineSink(last);
    },
    posts: () => posts,
    async close() {
      stopWatching();
      await web.stop();
    },
  };
  return harness;
}

runAdapterContract("web", () => webHarness());

// Recording for the console must not change what users see: the same contract through the wrapper.
runAdapterContract("web, recorded for the console", async () => {
  const store = await openStore("memory://");
  const log = new ConversationLog(store);
  const harness = await webHarness((adapter) =>
    recordedAdapter(adapter, {
      log,
      feed: new LiveFeed(),
      activity: new PlatformActivity(),
      logger: silentLogger,
    }),
  );
  return {
    ...harness,
    async close() {
      await harness.close();
      await log.idle();
      expect((await log.list()).length).toBeGreaterThan(0);
      await store.close();
    },
  };
});
