/**
 * Live configuration reload on Slack (the real adapter and Bolt against the stand-in, the app as
 * `switchboard start` builds it): 100 questions queue behind a held model; the billing specialist's
 * prompt is changed in switchboard.yaml and reloaded; every question is answered once, those
 * answered after the reload by the new prompt. An invalid edit is refused with start's own
 * message, logged, and the running configuration stays.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedChatModel } from "../bench/support/scripted-model.ts";
import { type App, buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { ConfigReloader } from "../packages/cli/src/reload/config-reloader.ts";
import { scriptedCatalogOf } from "./support/console/scripted-team.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const QUESTIONS = 100;

/** Holds every model call while `held` is set; answers by the prompt it was given. */
class HeldModel extends ScriptedChatModel {
  held: Promise<void> | undefined;
  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    await this.held;
    return super._generate(messages, options, runManager);
  }
}

/** The supervisor hands every thread to billing; billing says which prompt version it was given. */
function answer(messages: BaseMessage[]): AIMessage {
  const system = String(messages.find((message) => SystemMessage.isInstance(message))?.content ?? "");
  if (system.startsWith("You are supervisor")) {
    if (messages.some((message) => ToolMessage.isInstance(message))) return new AIMessage("");
    return new AIMessage({
      content: "",
      tool_calls: [{ id: `h-${Math.random()}`, name: "transfer_to_billing", args: {}, type: "tool_call" }],
    });
  }
  const version = /Prompt version (\w+)/.exec(system)?.[1] ?? "none";
  return new AIMessage(`billing answers with prompt ${version}`);
}

function yaml(slackApiUrl: string, billingPrompt: string): string {
  return [
    "store: sqlite://./data/switchboard.db",
    "memory:",
    "  enabled: false",
    "team:",
    "  supervisor:",
    "    prompt: Route every question to billing.",
    "  specialists:",
    "    - name: billing",
    "      description: invoices and payments",
    `      prompt: "${billingPrompt}"`,
    "slack:",
    `  apiUrl: ${slackApiUrl}`,
    "",
  ].join("\n");
}

let app: App | undefined;
let slack: FakeSlack | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  await slack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  app = undefined;
  slack = undefined;
});

describe("reloading switchboard.yaml while it runs", () => {
  it("answers every queued question once, the later ones with the new prompt; refuses an invalid file", {
    timeout: 120_000,
  }, async () => {
    slack = await FakeSlack.start({ transport: "socket" });
    const config = slack.adapterConfig();
    if (!("appToken" in config)) throw new Error("the Slack stand-in is not in Socket Mode");
    dir = await mkdtemp(join(tmpdir(), "switchboard-reload-"));
    const file = join(dir, "switchboard.yaml");
    await writeFile(file, yaml(config.apiUrl, "Prompt version one. Answer billing questions."));
    const env = {
      SWITCHBOARD_SLACK_BOT_TOKEN: config.botToken,
      SWITCHBOARD_SLACK_APP_TOKEN: config.appToken,
    };
    const workDir = dir;
    const load = () => loadConfig({ cwd: workDir, env });
    const model = new HeldModel(answer);
    let release: () => void = () => {};
    model.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const logger = createMemoryLogger();
    app = await buildApp({
      loaded: await load(),
      logger,
      cwd: dir,
      print: () => {},
      consoleUser: "ana",
      models: scriptedCatalogOf(model),
    });
    await app.start();
    const started = app;
    const reloader = new ConfigReloader({ load, reconfigure: (next) => started.reconfigure(next), logger });

    const roots: { ts: string }[] = [];
    for (let i = 0; i < QUESTIONS; i++) roots.push(await slack.say(GENERAL, `${MENTION} question ${i}`));
    const answers = (ts: string) =>
      slack!.state
        .thread(GENERAL, ts)
        .filter((message) => message.user === BOT_USER_ID || message.bot_id)
        .map((message) => message.text);
    // Everything is queued or waiting on the held model.
    await waitFor("turns waiting on the model", () => started.engine.health().runningTurns > 0);

    // An invalid edit: refused with the message start gives, nothing changes.
    await writeFile(file, `${yaml(config.apiUrl, "Prompt version broken.")}limits:\n  maxIterations: -3\n`);
    const refused = await reloader.reload("SIGHUP");
    expect(refused.outcome).toBe("refused");
    expect(refused.outcome === "refused" && refused.reason).toContain("limits.maxIterations");
    expect(
      logger.lines.find((line) => line.message.startsWith("configuration not reloaded"))?.fields?.reason,
    ).toContain("limits.maxIterations");

    // Let the first ten answers through on the first prompt, then hold again and reload.
    model.held = undefined;
    release();
    await waitFor("ten answers", () => roots.filter((root) => answers(root.ts).length > 0).length >= 10);
    model.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answeredBefore = roots.filter((root) => answers(root.ts).length > 0).length;
    await writeFile(file, yaml(config.apiUrl, "Prompt version two. Answer billing questions."));
    const reloaded = await reloader.reload("SIGHUP");
    expect(reloaded).toEqual({
      outcome: "reloaded",
      changed: ["team: billing's prompt"],
      needsRestart: [],
    });
    model.held = undefined;
    release();

    await waitFor(
      "every question answered",
      () => roots.every((root) => answers(root.ts).length > 0),
      90_000,
    );
    await started.idle();
    const all = roots.map((root) => answers(root.ts));
    // Once each, by one prompt or the other.
    expect(all.every((texts) => texts.length === 1)).toBe(true);
    const versions = all.map((texts) => /prompt (\w+)/.exec(texts[0] ?? "")?.[1]);
    expect(versions.filter((version) => version === "one").length).toBeGreaterThanOrEqual(answeredBefore);
    expect(versions.filter((version) => version === "two").length).toBeGreaterThan(0);
    expect(versions.every((version) => version === "one" || version === "two")).toBe(true);
    // A change that only a restart can make is named and kept.
    await writeFile(
      file,
      yaml(config.apiUrl, "Prompt version two. Answer billing questions.").replace(
        "store: sqlite://./data/switchboard.db",
        "store: sqlite://./data/other.db",
      ),
    );
    const partial = await reloader.reload("SIGHUP");
    expect(partial).toEqual({ outcome: "reloaded", changed: [], needsRestart: ["store", "checkpoints"] });
    expect(
      logger.lines.some((line) => line.message.startsWith("configuration changes that need a restart")),
    ).toBe(true);
    await reloader.close();
  });
});
