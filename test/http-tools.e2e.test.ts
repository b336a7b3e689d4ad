import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createHttpTool, openStore, type Store } from "@switchboard/core";
import { httpToolConfigSchema } from "@switchboard/core/config";
import { signWebhook, startHttpServer } from "@switchboard/core/host";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTrackingHarness } from "./support/tracking-harness.ts";

const conversation = { platform: "test", path: ["general", "root-a"] };
const secret = "a-shared-secret-of-some-length";

interface JobCall {
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage["headers"];
}

/**
 * An outside report service written the way an operator's would be: it queues the job, answers at
 * once, and later reports to Switchboard's webhook with nothing but the request id it was sent.
 */
async function startReportService(webhookUrl: () => string) {
  const calls: JobCall[] = [];
  const server: Server = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk) => {
      raw += chunk;
    });
    request.on("end", () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      calls.push({ body, headers: request.headers });
      const requestId = String(request.headers["x-switchboard-request-id"]);
      const jobId = `job-${calls.length}`;
      response.writeHead(202).end(`report job ${jobId} queued`);
      setTimeout(async () => {
        await report({ event: "run_triggered", eventId: `${jobId}-start`, requestId, runId: jobId });
        await report({
          event: "run_completed",
          eventId: `${jobId}-done`,
          requestId,
          runId: jobId,
          message: `Your ${body.topic} report is ready: ${body.pages} pages.`,
        });
      }, 20);
    });
  });
  const report = async (event: object) => {
    const raw = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    await fetch(webhookUrl(), {
      method: "POST",
      body: raw,
      headers: {
        "x-switchboard-timestamp": String(timestamp),
        "x-switchboard-signature": signWebhook(secret, timestamp, raw),
      },
    });
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reports`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("typed HTTP tools and outside jobs", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    await store.close();
  });

  it("a malformed call is corrected after the validation message; the job reports back through the webhook with the forwarded request id", async () => {
    let webhookBase = "";
    const service = await startReportService(() => `${webhookBase}/webhooks/runs`);
    const startReport = createHttpTool(
      httpToolConfigSchema.parse({
        name: "start_report",
        description: "start a long-running sales or stock report job",
        url: service.url,
        parameters: {
          topic: { type: "string", enum: ["sales", "stock"] },
          pages: "integer",
        },
      }),
    );
    const seenByModel: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "start_report", args: { topic: "sales", pages: "ten" }, id: "j1" }])
      .respond((messages: BaseMessage[]) => {
        // Corrects its call from what the validation said, as a real model would.
        const error = String(messages.findLast((m) => ToolMessage.isInstance(m))?.content);
        seenByModel.push(error);
        const pages = /pages/.test(error) && /integer/.test(error) ? 10 : "ten";
        return new AIMessage({
          content: "",
          tool_calls: [{ name: "start_report", args: { topic: "sales", pages }, id: "j2" }],
        });
      })
      .respond((messages: BaseMessage[]) => {
        seenByModel.push(String(messages.findLast((m) => ToolMessage.isInstance(m))?.content));
        return new AIMessage("I started your report; it will be posted here.");
      });
    const h = await startTrackingHarness({
      store,
      model,
      catalog: [{ tool: startReport, requiresApproval: false }],
      supervisorTools: ["start_report"],
      webhookSecret: secret,
    });
    const http = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      webhooks: h.tracking.webhooks,
      health: async () => ({}),
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    webhookBase = http.url;

    const origin = await h.adapter.send("make me a sales report of ten pages", { conversation });
    await waitFor("the job's report", () => h.adapter.posts.length === 2, 10_000);
    await h.engine.idle();

    expect(seenByModel[0]).toMatch(/^Error: Received tool input did not match expected schema/);
    expect(seenByModel[0]).toMatch(/pages.*integer/s);
    expect(seenByModel[1]).toBe("report job job-1 queued");
    // Only the corrected call reached the service, with the request's ids.
    expect(service.calls.map((call) => call.body)).toEqual([{ topic: "sales", pages: 10 }]);
    const request = await h.tracking.tracker.byOrigin(origin.id);
    const firstRun = request?.runs[0]?.runId;
    expect(service.calls[0]?.headers).toMatchObject({
      "x-switchboard-request-id": request?.id,
      "x-switchboard-run-id": firstRun,
      "x-switchboard-conversation": "test:general:root-a",
      "idempotency-key": `${firstRun}:j2`,
    });
    expect(h.adapter.posts.map((post) => [post.text, post.replyTo])).toEqual([
      ["I started your report; it will be posted here.", origin.id],
      ["Your sales report is ready: 10 pages.", origin.id],
    ]);
    expect(request?.status).toBe("completed");
    expect(request?.runs.map((run) => [run.triggeredBy, run.status])).toEqual([
      ["user_message", "completed"],
      ["webhook", "completed"],
    ]);
    await http.close();
    await h.stop();
    await service.close();
  });
});
