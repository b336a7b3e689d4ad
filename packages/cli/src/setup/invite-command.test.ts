/** `switchboard invite discord`: the invite link alone, with the application id given or looked up with the token. */
import { describe, expect, it } from "vitest";
import { FakeDiscord } from "../../../../test/support/discord/fake-discord.ts";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

describe("switchboard invite discord", () => {
  it("prints the link for a given application id, and the intent to switch on", async () => {
    const run = testContext({ cwd: process.cwd(), env: {} });
    expect(await runCli(["invite", "discord", "--application-id", "123456789012345678"], run.context)).toBe(
      0,
    );
    expect(run.stdout.text).toContain(
      "https://discord.com/oauth2/authorize?client_id=123456789012345678&scope=bot+applications.commands&permissions=309237746688",
    );
    expect(run.stdout.text).toContain("MESSAGE CONTENT INTENT");
  });

  it("looks the application id up with the bot token", async () => {
    const discord = await FakeDiscord.start();
    try {
      const run = testContext({ cwd: process.cwd(), env: { SWITCHBOARD_DISCORD_TOKEN: discord.token } });
      const code = await runCli(["invite", "discord", "--discord-api-url", discord.apiUrl], run.context);
      expect(run.stderr.text).toBe("");
      expect(code).toBe(0);
      expect(run.stdout.text).toContain(`client_id=${discord.world.applicationId}&`);
    } finally {
      await discord.close();
    }
  });

  it("says what it needs without either", async () => {
    const run = testContext({ cwd: process.cwd(), env: {} });
    expect(await runCli(["invite", "discord"], run.context)).toBe(2);
    expect(run.stderr.text).toContain("--application-id");
    const wrong = testContext({ cwd: process.cwd(), env: {} });
    expect(await runCli(["invite", "slack"], wrong.context)).toBe(2);
  });
});
