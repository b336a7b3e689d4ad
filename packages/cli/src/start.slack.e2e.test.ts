/**
 * `switchboard start` with a `slack:` section: the CLI builds the real Slack adapter from the
 * configuration and the environment, and the agent team answers in the asking thread. Slack is the
 * local stand-in from test/support (Socket Mode), so this runs without a network.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeSlack } from "../../../test/support/slack/fake-slack.ts";
import { BOT_USER_ID, GENERAL } from "../../../test/support/slack/workspace-state.ts";
import { testContext } from "./cli-test-context.ts";
import { readExampleConfig } from "./config/example-config.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
let slack: FakeSlack;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-slack-"));
  slack = await FakeSlack.start({ transport: "socket" });
});
afterEach(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

describe("switchboard start on Slack", () => {
  it("answers a mention in its thread through the team, then stops cleanly on a signal", async () => {
    const config = slack.adapterConfig();
    if (!("appToken" in config)) throw new Error("the stand-in was started for HTTP, not Socket Mode");
    const { botToken, appToken, apiUrl } = config;
    // What an operator does: `switchboard init`, then add the platform's section.
    await writeFile(
      join(dir, "switchboard.yaml"),
      `${await readExampleConfig()}\nslack:\n  apiUrl: ${apiUrl}\n`,
    );
    const run = testContext({
      cwd: dir,
      keepStdinOpen: true,
      env: { SWITCHBOARD_SLACK_BOT_TOKEN: botToken, SWITCHBOARD_SLACK_APP_TOKEN: appToken },
    });
    const exit = runCli(["start"], run.context);
    await waitFor("the Slack adapter to start", () => run.stderr.text.includes("running on slack"), 15_000);

    const question = await slack.say(GENERAL, `<@${BOT_USER_ID}> I was charged twice`);
    // The answer streams in (a progress line about the handoff first); wait for its final text.
    const answer = await waitFor("the answer in the thread", () =>
      slack.state
        .botMessages()
        .find((message) => message.thread_ts === question.ts && message.text.includes("for real answers")),
    );
    expect(slack.state.botMessages().filter((message) => message.thread_ts === question.ts)).toHaveLength(1);
    expect(answer.text).toContain("billing here");
    expect(answer.text).toContain("I was charged twice");
    expect(run.stdout.text).toBe("");

    run.shutdown.abort(new Error("SIGTERM"));
    expect(await exit).toBe(0);
    expect(run.stderr.text).toContain("switchboard: stopped");
  });
});
