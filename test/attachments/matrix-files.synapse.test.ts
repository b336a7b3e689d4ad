/**
 * Files in an encrypted Matrix room, on a real homeserver (a private Synapse, which predates the
 * authenticated media endpoints, so the legacy ones serve) with a real encrypting client
 * (matrix-js-sdk and its WASM crypto) and the real CLI with encryption on. Alice sends an encrypted
 * picture (`content.file`): it reaches the scripted model as an image block. The team's CSV comes
 * back encrypted: the event decrypts in Alice's client, and the file it names decrypts to the CSV.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../../packages/cli/src/cli-test-context.ts";
import { runCli } from "../../packages/cli/src/run-cli.ts";
import { PNG_1X1, SAMPLE_CSV } from "../../packages/core/src/attachments/testing/sample-files.ts";
import { decryptAttachment, encryptAttachment } from "../../packages/matrix/src/crypto/attachments.ts";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "../services/synapse-service.ts";
import { E2eeClient } from "../support/matrix/e2ee-client.ts";
import type { ChatRequest } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";

const missing = synapseMissing();
if (missing) process.stderr.write(`Matrix file tests on Synapse skipped: ${missing}\n`);

type Block = { type: string; text?: string; image_url?: { url: string } };

describe.skipIf(missing !== undefined)(
  "files in an encrypted Matrix room (real Synapse, real E2EE client, real CLI)",
  () => {
    let synapse: PrivateSynapse;
    let botUser: RegisteredUser;
    let aliceUser: RegisteredUser;
    let alice: E2eeClient;
    let stub: ModelStub;
    let dir: string;
    let stop: (() => Promise<void>) | undefined;
    let dm: string;

    beforeAll(async () => {
      synapse = await PrivateSynapse.start();
      dir = await mkdtemp(join(tmpdir(), "switchboard-matrix-files-synapse-"));
      botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
      aliceUser = await synapse.register("alice", { displayName: "Alice" });
      alice = await E2eeClient.start(aliceUser, synapse.url);
      stub = await ModelStub.start((request: ChatRequest) => {
        if (request.lastUserText.includes("export") && !request.toolResults.has("create_file"))
          return {
            kind: "answer",
            toolCalls: [{ name: "create_file", args: { name: "sales.csv", content: SAMPLE_CSV } }],
          };
        return { kind: "answer", text: `seen: ${request.lastUserText.slice(0, 60)}` };
      });
      await writeFile(
        join(dir, "switchboard.yaml"),
        JSON.stringify({
          model: stub.modelConfig({ maxRetries: 0 }),
          store: `sqlite://${join(dir, "switchboard.db")}`,
          memory: { enabled: false },
          team: { supervisor: { prompt: "Answer directly.", tools: ["create_file"] }, specialists: [] },
          matrix: {
            homeserverUrl: synapse.url,
            encryption: true,
            displayName: "Switchboard",
            syncTimeoutMs: 1_000,
            streaming: "off",
          },
        }),
      );
      const run = testContext({
        cwd: dir,
        keepStdinOpen: true,
        env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: botUser.accessToken },
      });
      const exit = runCli(["start"], run.context);
      await waitFor("the Matrix adapter", () => run.stderr.text.includes("running on matrix"), 60_000);
      stop = async () => {
        run.shutdown.abort(new Error("SIGTERM"));
        await exit;
      };
      dm = await alice.createEncryptedRoom([botUser.userId], { direct: true });
      await alice.waitForJoin(dm, botUser.userId);
    }, 180_000);

    afterAll(async () => {
      await stop?.();
      alice?.stop();
      await stub?.close();
      await synapse?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("an encrypted picture reaches the model as an image block", { timeout: 90_000 }, async () => {
      const { data, info } = encryptAttachment(PNG_1X1);
      const url = await upload(data);
      await alice.client.sendEvent(
        dm,
        "m.room.message" as never,
        {
          msgtype: "m.image",
          body: "what does this error mean?",
          filename: "error.png",
          file: { ...info, url },
          info: { mimetype: "image/png", size: PNG_1X1.byteLength },
          "m.mentions": {},
        } as never,
      );
      await alice.waitForMessage(dm, botUser.userId, /^seen: /);
      const content = stub.requests[0]?.body.messages.filter((message) => message.role === "user").at(-1)
        ?.content as Block[];
      expect(content[0]?.text).toContain("what does this error mean?");
      expect(content[1]).toEqual({
        type: "image_url",
        image_url: { url: `data:image/png;base64,${PNG_1X1.toString("base64")}` },
      });
    });

    it("the team's CSV comes back as an encrypted m.file whose file decrypts to the CSV", {
      timeout: 90_000,
    }, async () => {
      await alice.send(dm, "export the sales as CSV");
      const event = await waitFor(
        "the bot's file",
        async () =>
          (await alice.seen(dm)).find(
            (seen) => seen.sender === botUser.userId && seen.content.msgtype === "m.file",
          ),
        60_000,
      );
      expect(event.wireType).toBe("m.room.encrypted");
      expect(event.content).toMatchObject({ body: "sales.csv", info: { mimetype: "text/csv" } });
      const file = event.content.file as { url: string };
      expect(event.content.url).toBeUndefined();
      const [server, mediaId] = file.url.replace("mxc://", "").split("/");
      const response = await fetch(`${synapse.url}/_matrix/media/v3/download/${server}/${mediaId}`, {
        headers: { authorization: `Bearer ${aliceUser.accessToken}` },
      });
      const ciphertext = Buffer.from(await response.arrayBuffer());
      expect(ciphertext.toString()).not.toContain("region,revenue");
      expect(decryptAttachment(ciphertext, file).toString()).toBe(SAMPLE_CSV);
    });

    async function upload(data: Buffer): Promise<string> {
      const response = await fetch(`${synapse.url}/_matrix/media/v3/upload`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${aliceUser.accessToken}`,
          "content-type": "application/octet-stream",
        },
        body: data,
      });
      return ((await response.json()) as { content_uri: string }).content_uri;
    }
  },
);
