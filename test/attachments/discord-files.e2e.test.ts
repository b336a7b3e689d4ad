/**
 * Files on Discord, end to end: the real CLI (`switchboard start`), the real discord.js against the
 * stand-in (gateway, REST, and a CDN with signed links that expire), an OpenAI-compatible model stub
 * that scripts the model, and a transcription stand-in. What reaches the model is read off the
 * stub's requests; what the bot sends is read off the stand-in.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../../packages/cli/src/cli-test-context.ts";
import { runCli } from "../../packages/cli/src/run-cli.ts";
import {
  oggVoiceNote,
  PNG_1X1,
  pdfWithText,
  SAMPLE_CSV,
} from "../../packages/core/src/attachments/testing/sample-files.ts";
import { FakeDiscord } from "../support/discord/fake-discord.ts";
import type { ChatRequest } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";
import { TranscriptionStandIn } from "../support/transcription-stand-in.ts";

let dir: string;
let discord: FakeDiscord;
let stub: ModelStub;
let transcriber: TranscriptionStandIn;
let stop: (() => Promise<void>) | undefined;

type Block = { type: string; text?: string; image_url?: { url: string } };
const lastUserContent = (request: ChatRequest) =>
  request.body.messages.filter((message) => message.role === "user").at(-1)?.content;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-discord-files-"));
  discord = await FakeDiscord.start();
  transcriber = await TranscriptionStandIn.start("Please move the meeting to Friday.");
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
  await discord.close();
  await stub.close();
  await transcriber.close();
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
      attachments: { transcription: { baseUrl: transcriber.baseUrl, model: "whisper-test" } },
      discord: { apiUrl: discord.apiUrl, streaming: false },
    }),
  );
  const run = testContext({
    cwd: dir,
    keepStdinOpen: true,
    env: { SWITCHBOARD_DISCORD_TOKEN: discord.token },
  });
  const exit = runCli(["start"], run.context);
  await waitFor("the Discord adapter", () => run.stderr.text.includes("running on discord"), 15_000);
  stop = async () => {
    run.shutdown.abort(new Error("SIGTERM"));
    await exit;
  };
}

const textAnswers = (channelId: string) =>
  discord.botMessages().filter((message) => message.channelId === channelId && message.content !== "");
const filePosts = () => discord.botMessages().filter((message) => (message.attachments?.length ?? 0) > 0);

describe("files on Discord (real CLI and discord.js against the stand-in)", () => {
  it("an image with a question reaches the model as an image block, downloaded from the CDN without the bot token", async () => {
    await startCli();
    const dm = discord.dmWith();
    discord.say({
      channel: dm,
      content: "what does this error mean?",
      files: [{ name: "error.png", bytes: PNG_1X1, contentType: "image/png" }],
    });
    await waitFor("the answer", () => textAnswers(dm.id)[0]);
    const last = lastUserContent(stub.requests[0]!) as Block[];
    expect(last[0]?.text).toContain("what does this error mean?");
    expect(last[0]?.text).toContain("[Image attached: error.png · image/png · 70 bytes");
    expect(last[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG_1X1.toString("base64")}` },
    });
    expect(discord.world.cdn.fetches).toEqual([
      { path: expect.stringMatching(/^\/attachments\//), status: 200, authorization: undefined },
    ]);
  });

  it("an expired CDN link is renewed by reading the message again over REST", async () => {
    await startCli();
    discord.world.cdn.gatewayLinksExpired = true;
    const dm = discord.dmWith();
    const sent = discord.say({
      channel: dm,
      content: "and this one?",
      files: [{ name: "late.png", bytes: PNG_1X1, contentType: "image/png" }],
    });
    await waitFor("the answer", () => textAnswers(dm.id)[0]);
    expect((lastUserContent(stub.requests[0]!) as Block[])[1]?.type).toBe("image_url");
    expect(discord.requestsTo("GET", new RegExp(`/channels/${dm.id}/messages/${sent.id}$`))).toHaveLength(1);
    // The stale link was never requested: its expiry is in the link.
    expect(discord.world.cdn.fetches.map((fetch) => fetch.status)).toEqual([200]);
  });

  it("a PDF's text and a voice message's transcript reach the model", async () => {
    await startCli();
    const dm = discord.dmWith();
    discord.say({
      channel: dm,
      content: "what does the invoice say?",
      files: [
        {
          name: "invoice.pdf",
          bytes: pdfWithText("Invoice 42: total 99 EUR"),
          contentType: "application/pdf",
        },
      ],
    });
    await waitFor("the first answer", () => textAnswers(dm.id)[0]);
    discord.say({
      channel: dm,
      content: "",
      voice: true,
      files: [{ name: "voice-message.ogg", bytes: oggVoiceNote(), contentType: "audio/ogg" }],
    });
    await waitFor("the second answer", () => textAnswers(dm.id)[1]);
    expect(stub.requests[0]?.lastUserText).toContain("Invoice 42: total 99 EUR");
    expect(stub.requests[1]?.lastUserText).toContain("[Voice note attached: voice-message.ogg · audio/ogg");
    expect(stub.requests[1]?.lastUserText).toContain("Please move the meeting to Friday.");
  });

  it("an agent's CSV comes back once as a native attachment in the thread, even when Discord's answer to the post is lost", async () => {
    discord.world.failNextFilePost = true;
    await startCli();
    const question = discord.say({ content: `${discord.mention} export the sales as CSV` });
    const posted = await waitFor("the file in the thread", () => filePosts()[0]);
    await waitFor("the answer", () => textAnswers(question.id)[0]);
    expect(posted.channelId).toBe(question.id);
    expect(posted.attachments?.map((file) => [file.filename, file.contentType])).toEqual([
      ["sales.csv", "text/csv"],
    ]);
    expect(posted.attachments?.[0]?.bytes.toString()).toBe(SAMPLE_CSV);
    // discord.js sends the post again after the 500; the nonce returns the first message.
    const posts = () => discord.requestsTo("POST", new RegExp(`/channels/${question.id}/messages$`));
    await waitFor("the file's post sent again", () => posts().length >= 3 || undefined);
    await stop?.();
    stop = undefined;
    expect(filePosts()).toHaveLength(1);
  });
});
