import type { InboundMessage } from "@switchboard/core";
import type { Adapter, InboundSink } from "@switchboard/core/adapter";
import { type AdapterHarness, type ObservedPost, runAdapterContract } from "@switchboard/core/testing";
import Keyv from "keyv";
import { ConsoleAdapter } from "./console-adapter.ts";

runAdapterContract("console", async () => {
  const posts: ObservedPost[] = [];
  const console = new ConsoleAdapter({ print: () => {}, state: new Keyv<string>(), userId: "tester" });
  let sink: InboundSink | undefined;
  let last: InboundMessage | undefined;
  // Observe what reaches the engine and what the console printed, without changing either.
  const adapter: Adapter = {
    platform: console.platform,
    limits: console.limits,
    start: (engineSink) => {
      sink = engineSink;
      return console.start(async (message) => {
        last = message;
        await engineSink(message);
      });
    },
    stop: () => console.stop(),
    post: async (message) => {
      const posted = await console.post(message);
      posts.push({
        id: posted.id,
        conversation: posted.conversation,
        text: message.text,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      });
      return posted;
    },
  };
  let unsent = 0;
  const harness: AdapterHarness = {
    adapter,
    sampleConversations: [
      { platform: "console", path: ["main"] },
      { platform: "console", path: ["#general"] },
      { platform: "console", path: ["#general", "a1b2c33"] },
    ],
    platformMessageLimit: 4_000,
    measure: (text) => text.length,
    async userSays(message) {
      // The console has no other accounts: nothing can arrive from the bot itself or another bot.
      if (message.from && message.from !== "user") return `never-sent-${++unsent}`;
      const place =
        message.place === "channel"
          ? "#general"
          : message.place === "dm"
            ? "main"
            : message.place.conversation.path.join("/");
      await console.handleLine(`:switch ${place}`);
      const text = message.mention ? `@bot ${message.text}` : message.text;
      const id = await console.handleLine(message.replyTo ? `:reply ${message.replyTo} ${text}` : text);
      if (typeof id !== "string") throw new Error(`console did not send ${JSON.stringify(message)}`);
      return id;
    },
    async redeliverLast() {
      if (!sink || !last) throw new Error("nothing delivered yet");
      await sink(last);
    },
    posts: () => posts,
    close: () => console.stop(),
  };
  return harness;
});
