import { openStore, silentLogger } from "@switchboard/core";
import type { FileMessage } from "@switchboard/core/adapter";
import { RecordingAdapter } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { PlatformActivity } from "../health/platform-activity.ts";
import { ConversationLog } from "./conversation-log.ts";
import { type LiveEvent, LiveFeed } from "./live-feed.ts";
import { recordedAdapter } from "./recorded-adapter.ts";

describe("an adapter recorded for the console", () => {
  it("keeps the adapter's optional capabilities exactly as they are, and announces the working indicator", async () => {
    const store = await openStore("memory://");
    try {
      const deps = {
        log: new ConversationLog(store),
        feed: new LiveFeed(),
        activity: new PlatformActivity(),
        logger: silentLogger,
      };
      const events: LiveEvent[] = [];
      deps.feed.subscribe((event) => events.push(event));
      const plain = new RecordingAdapter({ platform: "plain" });
      const wrapped = recordedAdapter(plain, deps);
      expect(wrapped.findPosted).toBeUndefined();
      expect(wrapped.check).toBeUndefined();
      expect(wrapped.edit).toBeUndefined();

      const found = { id: "p-1", conversation: { platform: "idem", path: ["c"] } };
      const idempotent = Object.assign(new RecordingAdapter({ platform: "idem" }), {
        findPosted: async (_conversation: unknown, key: string) => (key === "work-1:0:0" ? found : undefined),
      });
      const recorded = recordedAdapter(idempotent, deps);
      expect(await recorded.findPosted?.(found.conversation, "work-1:0:0")).toEqual(found);
      expect(await recorded.findPosted?.(found.conversation, "other")).toBeUndefined();

      await recorded.setTyping?.(found.conversation, true);
      expect(deps.activity.runningTurns().map((turn) => turn.key)).toEqual(["idem:c"]);
      await recorded.setTyping?.(found.conversation, false);
      expect(deps.activity.runningTurns()).toEqual([]);
      expect(idempotent.typing).toEqual([
        { conversation: found.conversation, active: true },
        { conversation: found.conversation, active: false },
      ]);
      expect(events.map((event) => event.topic)).toEqual([
        "conversations",
        "health",
        "conversations",
        "health",
        "requests",
      ]);
    } finally {
      await store.close();
    }
  });

  it("shows a file the bot sends in the transcript, linked to where it is kept", async () => {
    const store = await openStore("memory://");
    try {
      const log = new ConversationLog(store);
      const deps = { log, feed: new LiveFeed(), activity: new PlatformActivity(), logger: silentLogger };
      const conversation = { platform: "files", path: ["c"] };
      const posts: string[] = [];
      const withFiles = Object.assign(new RecordingAdapter({ platform: "files" }), {
        files: {
          maxUploadBytes: 1_000,
          upload: async () => "F1",
          post: async (message: FileMessage) => {
            posts.push(message.upload);
            return { id: "fm-1", conversation };
          },
        },
      });
      const recorded = recordedAdapter(withFiles, deps);
      expect(recorded.files?.maxUploadBytes).toBe(1_000);
      const blob = { space: "a".repeat(32), digest: "b".repeat(64) };
      const open = async () => ReadableStream.from([new Uint8Array(12)]);
      const file = { name: "sales.csv", mediaType: "text/csv", size: 12, blob, open };
      await recorded.files?.post({
        conversation,
        file,
        upload: "F1",
        idempotencyKey: "w:0:1",
        agent: "billing",
      });
      await log.idle();
      expect(posts).toEqual(["F1"]);
      const [entry] = await log.transcript("files:c");
      expect(entry).toMatchObject({
        role: "bot",
        agent: "billing",
        text: "",
        files: [{ name: "sales.csv", mediaType: "text/csv", size: 12, blob: `${blob.space}/${blob.digest}` }],
      });
      expect((await log.summary("files:c"))?.lastText).toBe("sales.csv");
    } finally {
      await store.close();
    }
  });
});
