import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@switchboard/core";
import { signWebhook } from "@switchboard/core/host";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/load-config.ts";
import { buildApp } from "./build-app.ts";

async function appFrom(yaml: string) {
  const cwd = await mkdtemp(join(tmpdir(), "switchboard-app-"));
  await writeFile(join(cwd, "switchboard.yaml"), yaml);
  const loaded = await loadConfig({ cwd, env: { SWITCHBOARD_WEBHOOK_SECRET: "a-webhook-secret-from-env" } });
  const printed: string[] = [];
  const app = await buildApp({
    loaded,
    logger: silentLogger,
    cwd,
    print: (line) => printed.push(line),
    consoleUser: "ana",
  });
  await app.start();
  return { app, printed };
}

describe("buildApp wires the configured features", () => {
  it("serves /health and verifies webhooks with the secret from the environment", async () => {
    const { app } = await appFrom("http:\n  port: 0\n");
    const url = app.httpUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: "ok",
      openRequests: 0,
      turns: { inProgress: 0, max: 2_000, waitingToStart: 0 },
      modelEndpoints: [],
    });
    const body = JSON.stringify({ event: "run_completed", eventId: "e", requestId: "req-x", runId: "r" });
    const now = Math.floor(Date.now() / 1000);
    const post = (secret: string) =>
      fetch(`${url}/webhooks/runs`, {
        method: "POST",
        body,
        headers: {
          "x-switchboard-timestamp": String(now),
          "x-switchboard-signature": signWebhook(secret, now, body),
        },
      });
    expect((await post("not-the-configured-secret")).status).toBe(401);
    expect((await post("a-webhook-secret-from-env")).status).toBe(404);
    await app.close();
  });

  it("lets agents name the operator's HTTP tools, and names an unknown tool at start-up", async () => {
    const tool = [
      "tools:",
      "  - name: track_parcel",
      "    description: track a parcel",
      "    url: http://127.0.0.1:9/track",
    ];
    const team = (tools: string) => [
      "team:",
      "  supervisor:",
      "    prompt: You help.",
      `    tools: [${tools}]`,
    ];
    const { app } = await appFrom([...team("track_parcel, find_tools, search_memory"), ...tool].join("\n"));
    expect(app.team.agents().map((agent) => agent.name)).toEqual(["supervisor"]);
    await app.close();
    await expect(appFrom([...team("track_parcle"), ...tool].join("\n"))).rejects.toThrow(
      /supervisor lists tool "track_parcle", which does not exist \(known tools: track_parcel, find_tools, search_memory, create_file\)/,
    );
  });
});
