/**
 * Files on Slack, end to end: the real CLI (`switchboard start`), the real Slack SDKs against the
 * stand-in (which serves shared files and takes uploads), an OpenAI-compatible model stub that
 * scripts the model, and a transcription stand-in. What reaches the model is read off the stub's
 * requests: an image block, a PDF's text, a voice note's transcript; and an agent's CSV comes back
 * as one native upload in the thread.
 */
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
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
  pngOfSize,
  SAMPLE_CSV,
} from "../../packages/core/src/attachments/testing/sample-files.ts";
import type { ChatRequest } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";
import { FakeSlack } from "../support/slack/fake-slack.ts";
import { ALICE_DM, BOT_USER_ID } from "../support/slack/workspace-state.ts";
import { TranscriptionStandIn } from "../support/transcription-stand-in.ts";

let dir: string;
let slack: FakeSlack;
let stub: ModelStub;
let transcriber: TranscriptionStandIn;
let stop: (() => Promise<void>) | undefined;

const userContents = (request: ChatRequest) =>
  request.body.messages.filter((message) => message.role === "user").map((message) => message.content);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-files-"));
  slack = await FakeSlack.start({ transport: "socket", echoBotMessages: false });
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
  await slack.close();
  await stub.close();
  await transcriber.close();
  await rm(dir, { recursive: true, force: true });
});

async function startCli(): Promise<void> {
  const config = slack.adapterConfig();
  if (!("appToken" in config)) throw new Error("expected Socket Mode");
  await writeFile(
    join(dir, "switchboard.yaml"),
    JSON.stringify({
      model: stub.modelConfig({ maxRetries: 0 }),
      store: `sqlite://${join(dir, "switchboard.db")}`,
      memory: { enabled: false },
      team: { supervisor: { prompt: "Answer directly.", tools: ["create_file"] }, specialists: [] },
      attachments: { transcription: { baseUrl: transcriber.baseUrl, model: "whisper-test" } },
      slack: { apiUrl: config.apiUrl, workingIndicator: "off", streaming: "off" },
    }),
  );
  const run = testContext({
    cwd: dir,
    keepStdinOpen: true,
    env: { SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken, SWITCHBOARD_SLACK_APP_TOKEN: config.appToken },
  });
  const exit = runCli(["start"], run.context);
  await waitFor("the Slack adapter", () => run.stderr.text.includes("running on slack"), 15_000);
  stop = async () => {
    run.shutdown.abort(new Error("SIGTERM"));
    await exit;
  };
}

const answers = () => slack.state.botMessages().filter((message) => message.text !== "");

describe("files on Slack (real CLI, Bolt and Web API against the stand-in)", () => {
  it("an image with a question reaches the model as an image block", async () => {
    await startCli();
    await slack.say(ALICE_DM, "what does this error mean?", {
      files: [{ name: "error.png", bytes: PNG_1X1, mimetype: "image/png" }],
    });
    await waitFor("the answer", () => answers()[0]);
    const contents = userContents(stub.requests[0]!);
    const last = contents.at(-1) as { type: string; text?: string; image_url?: { url: string } }[];
    expect(last[0]?.text).toContain("what does this error mean?");
    expect(last[0]?.text).toContain("[Image attached: error.png · image/png · 70 bytes");
    expect(last[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG_1X1.toString("base64")}` },
    });
  });

  it("a 5 MB image is kept beside the store, and the checkpoint does not grow with it", async () => {
    await startCli();
    await slack.say(ALICE_DM, "small first");
    await waitFor("the first answer", () => answers()[0]);
    const before = (await stat(join(dir, "switchboard.db"))).size;
    await slack.say(ALICE_DM, "and this screenshot?", {
      files: [{ name: "big.png", bytes: pngOfSize(5 * 1024 * 1024), mimetype: "image/png" }],
    });
    await waitFor("the second answer", () => answers()[1]);
    await stop?.();
    stop = undefined;
    // The model saw the whole image (base64) …
    const image = (userContents(stub.requests[1]!).at(-1) as { image_url?: { url: string } }[])[1];
    expect(image?.image_url?.url.length).toBeGreaterThan(5 * 1024 * 1024);
    // … the bytes sit in the blob folder, and the store (checkpoints included) grew by far less.
    const spaces = await readdir(join(dir, "attachments"));
    const blobs = await readdir(join(dir, "attachments", spaces[0]!));
    expect((await stat(join(dir, "attachments", spaces[0]!, blobs[0]!))).size).toBe(5 * 1024 * 1024);
    expect((await stat(join(dir, "switchboard.db"))).size - before).toBeLessThan(256 * 1024);
  });

  it("a PDF's text and a voice note's transcript reach the model", async () => {
    await startCli();
    await slack.say(ALICE_DM, "what does the invoice say?", {
      files: [
        { name: "invoice.pdf", bytes: pdfWithText("Invoice 42: total 99 EUR"), mimetype: "application/pdf" },
      ],
    });
    await waitFor("the first answer", () => answers()[0]);
    await slack.say(ALICE_DM, "", {
      files: [{ name: "memo.ogg", bytes: oggVoiceNote(), mimetype: "audio/ogg", subtype: "slack_audio" }],
    });
    await waitFor("the second answer", () => answers()[1]);
    expect(stub.requests[0]?.lastUserText).toContain("Invoice 42: total 99 EUR");
    expect(stub.requests[1]?.lastUserText).toContain("[Voice note attached: memo.ogg · audio/ogg");
    expect(stub.requests[1]?.lastUserText).toContain("Please move the meeting to Friday.");
    expect(transcriber.requests).toHaveLength(1);
    expect(transcriber.requests[0]?.contentType).toMatch(/^multipart\/form-data/);
  });

  it("an agent's CSV comes back as one native upload in the conversation", async () => {
    await startCli();
    await slack.say(ALICE_DM, "export the sales as CSV");
    const shared = await waitFor("the file in the DM", () =>
      slack.state.botMessages().find((message) => message.files?.length),
    );
    await waitFor("the answer", () => answers()[0]);
    expect(shared.files?.[0]?.name).toBe("sales.csv");
    expect(slack.state.fileBytes.get(shared.files![0]!.id)?.toString()).toBe(SAMPLE_CSV);
    expect(slack.api.uploads.size).toBe(1);
    expect(slack.state.botMessages().filter((message) => message.files?.length)).toHaveLength(1);
  });

  it("tells the sender in one sentence when Slack refuses the download (no files:read)", async () => {
    await slack.close();
    slack = await FakeSlack.start({
      transport: "socket",
      echoBotMessages: false,
      scopes: ["app_mentions:read", "chat:write", "channels:history", "im:history"],
    });
    await startCli();
    await slack.say(ALICE_DM, "look", {
      files: [{ name: "error.png", bytes: PNG_1X1, mimetype: "image/png" }],
    });
    const answer = await waitFor("the answer", () => answers()[0]);
    expect(answer.text).toContain("I am not allowed to open error.png here, so I could not read it.");
    expect(BOT_USER_ID).toBeTruthy();
  });
});
