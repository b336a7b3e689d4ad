import { type Adapter, encodeConversationKey, type Logger } from "@switchboard/core";
import type { PlatformActivity } from "../health/platform-activity.ts";
import type { ConversationLog } from "./conversation-log.ts";
import type { LiveFeed } from "./live-feed.ts";

/**
 * The same adapter, with what users write and what the bot posts copied into the conversation log
 * and announced on the live feed. Recording never delays or fails the message it records: it runs
 * beside the pipeline and only logs its own failures.
 */
export function recordedAdapter(
  adapter: Adapter,
  deps: { log: ConversationLog; feed: LiveFeed; activity: PlatformActivity; logger: Logger },
): Adapter {
  const { log, feed, activity, logger } = deps;
  activity.watch(adapter);
  const report = (what: string) => (error: unknown) =>
    logger.warn(`console could not record ${what}`, { platform: adapter.platform, error });
  const recorded: Adapter = {
    platform: adapter.platform,
    limits: adapter.limits,
    start: (sink) =>
      adapter.start((message) => {
        activity.noteEvent(adapter.platform);
        // Started before the engine sees the message: its answer is always recorded after it.
        void log.noteInbound(message).catch(report("a message"));
        return sink(message);
      }),
    stop: () => adapter.stop(),
    async post(message) {
      const posted = await adapter.post(message);
      void log.notePosted(message, posted).catch(report("a bot message"));
      return posted;
    },
    async setTyping(conversation, active) {
      const key = encodeConversationKey(conversation);
      activity.noteWorking(key, active);
      feed.publish({ topic: "conversations", key, working: active });
      // The end of a turn is when request records change.
      feed.publish({ topic: "health" });
      if (!active) feed.publish({ topic: "requests" });
      await adapter.setTyping?.(conversation, active);
    },
  };
  // Every optional capability stays exactly as the adapter has it (or lacks it).
  if (adapter.check) recorded.check = () => adapter.check?.() ?? Promise.resolve({ warnings: [] });
  if (adapter.findPosted)
    recorded.findPosted = (conversation, key) =>
      adapter.findPosted?.(conversation, key) ?? Promise.resolve(undefined);
  if (adapter.describePlace)
    recorded.describePlace = (conversation) =>
      adapter.describePlace?.(conversation) ?? Promise.resolve(undefined);
  if (adapter.edit) recorded.edit = (posted, text) => adapter.edit?.(posted, text) ?? Promise.resolve();
  return recorded;
}
