import { encodeConversationKey, type Logger } from "@switchboard/core";
import type { Adapter, AdapterFiles, AdapterStreaming, NativeTextStream } from "@switchboard/core/adapter";
import { delegateTo } from "@switchboard/core/host";
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
  // Every setting and optional ability stays exactly as the adapter has it (or lacks it).
  const recorded: Adapter = {
    ...delegateTo(adapter),
    ...(adapter.streaming ? { streaming: recordedStreaming(adapter.streaming, log, report) } : {}),
    ...(adapter.files ? { files: recordedFiles(adapter.files, log, report) } : {}),
    start: (sink) =>
      adapter.start((message) => {
        activity.noteEvent(adapter.platform);
        // Started before the engine sees the message: its answer is always recorded after it.
        void log.noteInbound(message).catch(report("a message"));
        return sink(message);
      }),
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
  if (adapter.edit) {
    const edit = adapter.edit.bind(adapter);
    recorded.edit = async (posted, text, approval) => {
      await (approval ? edit(posted, text, approval) : edit(posted, text));
      // A streamed answer grows in the transcript as it does on the platform.
      void log.noteEdited(posted, text).catch(report("an edited bot message"));
    };
  }
  if (adapter.showProgress) {
    const showProgress = adapter.showProgress.bind(adapter);
    recorded.showProgress = async (conversation, status) => {
      const shown = await showProgress(conversation, status);
      if (shown) {
        const key = encodeConversationKey(conversation);
        activity.noteStatus(key, status);
        feed.publish({ topic: "conversations", key, working: true });
      }
      return shown;
    };
  }
  return recorded;
}

/** The adapter's file sending, with each file shown in the transcript once it is posted. */
function recordedFiles(
  files: AdapterFiles,
  log: ConversationLog,
  report: (what: string) => (error: unknown) => void,
): AdapterFiles {
  return {
    maxUploadBytes: files.maxUploadBytes,
    upload: (conversation, file) => files.upload(conversation, file),
    async post(message) {
      const posted = await files.post(message);
      void log.notePostedFile(message, posted).catch(report("a file the bot sent"));
      return posted;
    },
    ...(files.findPosted ? { findPosted: files.findPosted.bind(files) } : {}),
  };
}

/**
 * The adapter's streaming, with a platform's own stream (Slack's chat streamer) recorded once its
 * message exists: such a message is not posted through `post`, and its later edits need its entry.
 */
function recordedStreaming(
  streaming: AdapterStreaming,
  log: ConversationLog,
  report: (what: string) => (error: unknown) => void,
): AdapterStreaming {
  const open = streaming.openStream?.bind(streaming);
  if (!open) return streaming;
  return {
    ...streaming,
    openStream(message): NativeTextStream {
      const stream = open(message);
      let text = "";
      let noted = false;
      const note = (posted: Awaited<ReturnType<NativeTextStream["stop"]>>) => {
        if (noted) return;
        noted = true;
        void log.notePosted({ ...message, text }, posted).catch(report("a streamed bot message"));
      };
      return {
        async append(markdown) {
          text += markdown;
          const posted = await stream.append(markdown);
          if (posted) note(posted);
          return posted;
        },
        async stop() {
          const posted = await stream.stop();
          note(posted);
          return posted;
        },
      };
    },
  };
}
