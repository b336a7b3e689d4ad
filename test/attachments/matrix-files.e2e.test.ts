/**
 * Files on Matrix, end to end: the real CLI (`switchboard start`) with matrix-bot-sdk against the
 * homeserver stand-in, which keeps a media repository behind the authenticated endpoints (or, set
 * to an older homeserver, only the legacy ones); an OpenAI-compatible model stub scripts the model.
 * What reaches the model is read off the stub's requests; what the bot sends, off the homeserver.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../../packages/cli/src/cli-test-context.ts";
import { runCli } from "../../packages/cli/src/run-cli.ts";
import {
  PNG_1X1,
  pdfWithText,
  SAMPLE_CSV,
} from "../../packages/core/src/attachments/testing/sample-files.ts";
import { encryptAttachment } from "../../packages/matrix/src/crypto/attachments.ts";
import { createWorld, type MatrixWorld } from "../support/matrix/bot-fixture.ts";
import type { ChatRequest } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";

let dir: string;
let world: MatrixWorld;
let stub: ModelStub;
let stop: (() => Promise<void>) | undefined;

type Block = { type: string; text?: string; image_url?: { url: string } };
const lastUserContent = (request: ChatRequest) =>
  request.body.messages.filter((message) => message.role === "user").at(-1)?.content;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-matrix-files-"));
  world = await createWorld();
  stub = await ModelStub.start((request) => {
    if (request.lastUserText.includes("export") && !request.toolResults.has("create_file"))
      return {
        kind: "answer",
        toolCalls: [{ name: "create_file", args: { name: "sales.csv", content: SAMPLE_CSV } }],
      };
    return { kind: "answer", text: `seen: ${request.lastUserText.slice(0, 60)}` };
  });
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
  await world.homeserver.close();
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

async function startCli(): Promise<void> {
  await writeFile(
    join(dir, "switchboard.yaml"),
    JSON.stringify({
      model: stub.modelConfig({ maxRetries: 0 }),
      store: `sqlite://${join(dir, "switchboard.db")}`,
      memory: { enabled: false },
      team: { supervisor: { prompt: "Answer directly.", tools: ["create_file"] }, specialists: [] },
      matrix: { homeserverUrl: world.homeserver.url, streaming: false, syncTimeoutMs: 2_000 },
    }),
  );
  const run = testContext({
    cwd: dir,
    keepStdinOpen: true,
    env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: "bot-token" },
  });
  const exit = runCli(["start"], run.context);
  await waitFor("the Matrix adapter", () => run.stderr.text.includes("running on matrix"), 15_000);
  stop = async () => {
    run.shutdown.abort(new Error("SIGTERM"));
    await exit;
  };
}

const answers = () =>
  world.homeserver
    .eventsFrom(world.bot)
    .filter((event) => event.content.msgtype === "m.notice" || event.content.msgtype === "m.text");

describe("files on Matrix (real CLI and matrix-bot-sdk against the stand-in)", () => {
  it("an m.image with a caption reaches the model as an image block, downloaded through the authenticated endpoint", async () => {
    await startCli();
    const url = world.homeserver.uploadMedia(PNG_1X1, "image/png", "error.png");
    world.homeserver.userSends(world.dm, world.alice, {
      msgtype: "m.image",
      body: "what does this error mean?",
      filename: "error.png",
      url,
      info: { mimetype: "image/png", size: PNG_1X1.byteLength },
    });
    await waitFor("the answer", () => answers()[0], 15_000);
    const last = lastUserContent(stub.requests[0]!) as Block[];
    expect(last[0]?.text).toContain("what does this error mean?");
    expect(last[0]?.text).toContain("[Image attached: error.png · image/png · 70 bytes");
    expect(last[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG_1X1.toString("base64")}` },
    });
    expect(world.homeserver.mediaDownloads).toEqual([
      { endpoint: "v1", mediaId: url.split("/").at(-1), authorized: true },
    ]);
  });

  it("on a homeserver without authenticated media, a file comes from the legacy endpoint", async () => {
    world.homeserver.legacyMediaOnly = true;
    await startCli();
    const url = world.homeserver.uploadMedia(pdfWithText("Invoice 42: total 99 EUR"), "application/pdf");
    world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.file", body: "invoice.pdf", url });
    await waitFor("the answer", () => answers()[0], 15_000);
    expect(stub.requests[0]?.lastUserText).toContain("Invoice 42: total 99 EUR");
    expect(world.homeserver.mediaDownloads.map((download) => download.endpoint)).toEqual(["legacy"]);
  });

  it("a file from an encrypted event (content.file) is decrypted; one that fails its hash is refused in one sentence", async () => {
    await startCli();
    const { data, info } = encryptAttachment(PNG_1X1);
    const url = world.homeserver.uploadMedia(data, "application/octet-stream");
    world.homeserver.userSends(world.dm, world.alice, {
      msgtype: "m.image",
      body: "secret.png",
      file: { ...info, url },
      info: { mimetype: "image/png" },
    });
    await waitFor("the first answer", () => answers()[0], 15_000);
    expect((lastUserContent(stub.requests[0]!) as Block[])[1]?.image_url?.url).toBe(
      `data:image/png;base64,${PNG_1X1.toString("base64")}`,
    );
    const tampered = world.homeserver.uploadMedia(
      Buffer.from(data).fill(7, 0, 4),
      "application/octet-stream",
    );
    world.homeserver.userSends(world.dm, world.alice, {
      msgtype: "m.image",
      body: "tampered.png",
      file: { ...info, url: tampered },
    });
    const refused = await waitFor("the second answer", () => answers()[1], 15_000);
    expect(String(refused.content.body)).toContain(
      "I could not download tampered.png; please send it again.",
    );
  });

  it("an agent's CSV is uploaded and shown once as an m.file in the thread", async () => {
    await startCli();
    world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "export the sales as CSV" });
    const shared = await waitFor(
      "the file",
      () => world.homeserver.eventsFrom(world.bot).find((event) => event.content.msgtype === "m.file"),
      15_000,
    );
    await waitFor("the answer", () => answers()[0]);
    expect(shared.content).toMatchObject({
      body: "sales.csv",
      filename: "sales.csv",
      info: { mimetype: "text/csv", size: SAMPLE_CSV.length },
      "m.mentions": {},
    });
    const mediaId = String(shared.content.url).split("/").at(-1) ?? "";
    expect(world.homeserver.media.get(mediaId)?.bytes.toString()).toBe(SAMPLE_CSV);
    await stop?.();
    stop = undefined;
    expect(
      world.homeserver.eventsFrom(world.bot).filter((event) => event.content.msgtype === "m.file"),
    ).toHaveLength(1);
  });
});
