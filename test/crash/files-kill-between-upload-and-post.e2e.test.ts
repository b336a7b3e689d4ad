/**
 * SIGKILL between a file's upload and the message that shows it, on the real CLI against the Slack
 * stand-in. An agent writes a CSV (`create_file`); the outbox uploads it (files.getUploadURLExternal
 * and the bytes), records the upload, then shares it into the thread (files.completeUploadExternal).
 * The process is killed while that share is held:
 *
 * - before Slack acted: the share never reaches Slack (the held request is dropped);
 * - after Slack acted: Slack shared the file, the process never heard back.
 *
 * After a restart on the same store the CSV is in the thread exactly once, from the one upload made
 * before the kill (no second getUploadURLExternal), and the model was not asked again.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SAMPLE_CSV } from "../../packages/core/src/attachments/testing/sample-files.ts";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { pause } from "../support/crash/settle.ts";
import type { ModelScript } from "../support/model/model-stub.ts";
import { Gauge } from "../support/model/model-stub.ts";
import type { WebApiStandIn } from "../support/slack/web-api-stand-in.ts";

const LOCK_TTL_SECONDS = 3;
const SHARE = "files.completeUploadExternal";

const exportScript: ModelScript = (request) =>
  request.lastUserText.includes("export") && !request.toolResults.has("create_file")
    ? {
        kind: "answer",
        toolCalls: [{ name: "create_file", args: { name: "sales.csv", content: SAMPLE_CSV } }],
      }
    : { kind: "answer", text: "Here is the export." };

/** Holds the share of a file: before Slack acts (then drops it) or after (then lets the answer go). */
function holdShare(api: WebApiStandIn, point: "before" | "after") {
  const held = new Gauge();
  const waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let released = false;
  const hold = () => {
    held.add(1);
    return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  if (point === "before") api.requestGate = (method) => (released || method !== SHARE ? undefined : hold());
  else
    api.responseGate = (call) => (released || call.method !== SHARE || !call.reply.ok ? undefined : hold());
  return {
    held,
    /** After the kill: a share held before Slack acted never reaches it; one held after was done. */
    release() {
      released = true;
      api.requestGate = undefined;
      api.responseGate = undefined;
      for (const entry of waiting.splice(0))
        if (point === "before") entry.reject(new Error("the process that sent this is gone"));
        else entry.resolve();
    },
  };
}

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each<StoreKind>(["sqlite", "redis"])(
  "SIGKILL between a file's upload and its post (%s)",
  (store) => {
    it.each(["before", "after"] as const)(
      "killed while the share is held (%s Slack acted): the CSV is in the thread exactly once",
      { timeout: 90_000 },
      async (point) => {
        world = await CrashWorld.start({
          store,
          lockTtlSeconds: LOCK_TTL_SECONDS,
          script: exportScript,
          config: { supervisorTools: ["create_file"] },
        });
        const { api, state } = world.slack;
        const gate = holdShare(api, point);
        const first = await world.startCli();
        const origin = world.traffic.mention("q001", undefined, "export the sales as CSV for");
        await world.traffic.deliverAll(world.transport(), [origin]);
        await waitFor("the share to be held", () => gate.held.value >= 1, 30_000).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${world?.logs()}`);
        });
        const modelCalls = world.stub().received.value;
        await first.kill();
        gate.release();

        await world.startCli();
        const inThread = () => state.botMessages().filter((message) => message.thread_ts === origin.threadTs);
        const shared = () => inThread().filter((message) => message.files?.length);
        await waitFor("the CSV in the thread", () => shared()[0], (LOCK_TTL_SECONDS + 15) * 1000).catch(
          (error: unknown) => {
            throw new Error(`${String(error)}\n${world?.logs()}`);
          },
        );
        // Long enough for a late second share to show.
        await pause((LOCK_TTL_SECONDS + 1) * 1000);
        expect(shared(), world.logs()).toHaveLength(1);
        const file = shared()[0]?.files?.[0];
        expect(file?.name).toBe("sales.csv");
        expect(state.fileBytes.get(file?.id ?? "")?.toString()).toBe(SAMPLE_CSV);
        expect(api.uploads.size, "uploads started").toBe(1);
        expect(inThread().filter((message) => message.text === "Here is the export.")).toHaveLength(1);
        expect(world.stub().received.value, "model calls after the restart").toBe(modelCalls);
      },
    );
  },
);
