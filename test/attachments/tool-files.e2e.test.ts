/**
 * Files out from tools, end to end: the real CLI with a real MCP server (stdio, the official SDK)
 * and an HTTP tool, Slack through its real SDKs against the stand-in, the model scripted by a stub.
 * An MCP tool's image and its embedded PDF resource, and an HTTP tool's CSV answer, each come back to
 * the thread as one native upload after the answer; the model reads a line about each, not the bytes.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../../packages/cli/src/cli-test-context.ts";
import { runCli } from "../../packages/cli/src/run-cli.ts";
import { SAMPLE_CSV } from "../../packages/core/src/attachments/testing/sample-files.ts";
import { INVOICE_PDF, PARCEL_PHOTO_PNG } from "../support/mcp/order-server.ts";
import { stdioOrderServer } from "../support/mcp/order-servers.ts";
import type { ChatRequest, StubReply } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";
import { FakeSlack } from "../support/slack/fake-slack.ts";
import { ALICE_DM } from "../support/slack/workspace-state.ts";

let dir: string;
let slack: FakeSlack;
let stub: ModelStub;
let exportEndpoint: Server;
let exportUrl: string;
let orders: Awaited<ReturnType<typeof stdioOrderServer>>;
let stop: (() => Promise<void>) | undefined;

/** The agent calls the tool a question names, once, then answers with what the tool said. */
const TOOL_FOR: Readonly<Record<string, { name: string; args: Record<string, unknown> }>> = {
  photo: { name: "orders__parcel_photo", args: { orderId: "A-17" } },
  invoice: { name: "orders__invoice_pdf", args: { orderId: "A-17" } },
  export: { name: "sales_export", args: { month: "march" } },
};
function script(request: ChatRequest): StubReply {
  const wanted = Object.entries(TOOL_FOR).find(([word]) => request.lastUserText.includes(word))?.[1];
  if (wanted && !request.toolResults.has(wanted.name)) return { kind: "answer", toolCalls: [wanted] };
  const said = wanted ? request.toolResults.get(wanted.name) : undefined;
  return { kind: "answer", text: `done: ${said ?? "nothing"}` };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-tool-files-"));
  slack = await FakeSlack.start({ transport: "socket", echoBotMessages: false });
  stub = await ModelStub.start(script);
  orders = await stdioOrderServer({}, { files: true });
  exportEndpoint = createServer((request, response) => {
    request.resume();
    response.writeHead(200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="sales-march.csv"`,
    });
    response.end(SAMPLE_CSV);
  });
  await new Promise<void>((resolve) => exportEndpoint.listen(0, "127.0.0.1", resolve));
  exportUrl = `http://127.0.0.1:${(exportEndpoint.address() as AddressInfo).port}/export`;
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
  await slack.close();
  await stub.close();
  await orders.cleanup();
  exportEndpoint.closeAllConnections();
  await new Promise<void>((resolve) => exportEndpoint.close(() => resolve()));
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
      mcp: { servers: [orders.config] },
      tools: [{ name: "sales_export", description: "Export a month's sales as CSV", url: exportUrl }],
      team: {
        supervisor: {
          prompt: "Answer directly.",
          tools: ["orders__parcel_photo", "orders__invoice_pdf", "sales_export"],
        },
        specialists: [],
      },
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

const shared = () => slack.state.botMessages().filter((message) => message.files?.length);
const answers = () => slack.state.botMessages().filter((message) => message.text.startsWith("done:"));

describe("files from tools (real CLI, a real MCP server, an HTTP tool, Slack's SDKs against the stand-in)", () => {
  it.each([
    ["photo", "an MCP tool's image", "image/png", PARCEL_PHOTO_PNG, /^parcel_photo-image-1\.png$/],
    ["invoice", "an MCP tool's embedded resource", "application/pdf", INVOICE_PDF, /^A-17\.pdf$/],
    ["export", "an HTTP tool's CSV answer", "text/csv", Buffer.from(SAMPLE_CSV), /^sales-march\.csv$/],
  ] as const)(
    "%s: %s comes back as one native upload; the model reads a line about it",
    async (word, _what, mediaType, bytes, name) => {
      await startCli();
      await slack.say(ALICE_DM, `send me the ${word} please`);
      const answer = await waitFor("the answer", () => answers()[0], 15_000);
      const file = await waitFor("the file in the DM", () => shared()[0]?.files?.[0]);
      expect(file.name).toMatch(name);
      expect(slack.state.fileBytes.get(file.id)).toEqual(bytes);
      expect(answer.text).toContain(`Returned the file ${file.name} (${mediaType},`);
      // The bytes never reached the model: its tool result is the one line.
      const toolMessage = stub.requests.at(-1)?.body.messages.find((message) => message.role === "tool");
      expect(String(toolMessage?.content)).not.toContain(bytes.toString("base64").slice(0, 40));
      expect(String(toolMessage?.content)).toMatch(/^(Delivery photo for A-17:\n)?Returned the file /);
      await stop?.();
      stop = undefined;
      expect(shared()).toHaveLength(1);
    },
  );
});
