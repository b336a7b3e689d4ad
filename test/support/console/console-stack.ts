import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@switchboard/core";
import { type App, buildApp } from "../../../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../../../packages/cli/src/config/load-config.ts";
import { FakeSlack } from "../slack/fake-slack.ts";
import { startRefundEndpoint } from "./refund-endpoint.ts";
import { CONSOLE_TEAM_YAML, scriptedCatalog } from "./scripted-team.ts";

export const CONSOLE_TOKEN = "console-token-for-browser-tests";

/**
 * A whole Switchboard process as `switchboard start` builds it — SQLite store, HTTP server with
 * the console, the web chat and the real Slack adapter against the Slack stand-in — with a
 * scripted team instead of a remote model.
 */
export async function startConsoleStack(options: { paceMs?: number; extraYaml?: string } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-console-"));
  const slack = await FakeSlack.start({ transport: "socket" });
  const refunds = await startRefundEndpoint();
  const slackConfig = slack.adapterConfig();
  if (!("appToken" in slackConfig)) throw new Error("the Slack stand-in is not in Socket Mode");
  await writeFile(
    join(dir, "switchboard.yaml"),
    [
      "store: sqlite://./data/switchboard.db",
      "http:",
      "  port: 0",
      `  consoleToken: ${CONSOLE_TOKEN}`,
      CONSOLE_TEAM_YAML,
      "tools:",
      "  - name: refund",
      "    description: refund a payment that was charged twice",
      `    url: ${refunds.url}`,
      "    requiresApproval: true",
      "slack:",
      `  apiUrl: ${slackConfig.apiUrl}`,
      options.extraYaml ?? "",
      "",
    ].join("\n"),
  );
  const loaded = await loadConfig({
    cwd: dir,
    env: {
      SWITCHBOARD_SLACK_BOT_TOKEN: slackConfig.botToken,
      SWITCHBOARD_SLACK_APP_TOKEN: slackConfig.appToken,
    },
  });
  let app: App | undefined;
  try {
    app = await buildApp({
      loaded,
      logger: silentLogger,
      cwd: dir,
      print: () => {},
      consoleUser: "operator",
      models: scriptedCatalog(options),
    });
    await app.start();
  } catch (error) {
    await app?.close();
    await slack.close();
    await refunds.close();
    throw error;
  }
  const started = app;
  const info = started.operatorConsole();
  if (!info) throw new Error("the console did not start");
  let slackClosed = false;
  return {
    app: started,
    slack,
    refunds,
    consoleUrl: info.url,
    async stopSlack() {
      slackClosed = true;
      await slack.close();
    },
    async close() {
      await started.close();
      if (!slackClosed) await slack.close();
      await refunds.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
