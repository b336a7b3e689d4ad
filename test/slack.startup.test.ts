import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryLogger } from "@switchboard/core/testing";
import { createSlackAdapter, type SlackAdapter } from "@switchboard/slack";
import { afterEach, describe, expect, it } from "vitest";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { ALL_SCOPES } from "./support/slack/workspace-state.ts";

describe("Slack start-up checks (auth.test)", () => {
  let slack: FakeSlack;
  let adapter: SlackAdapter | undefined;
  const ignore = async () => {};
  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    await slack?.close();
  });

  it("starts with a good token and reports the HTTP port it chose", async () => {
    slack = await FakeSlack.start({ transport: "http" });
    adapter = await createSlackAdapter(slack.adapterConfig());
    await adapter.check();
    await adapter.start(ignore);
    expect(adapter.port).toBeGreaterThan(0);
    expect(slack.state.callsTo("auth.test").length).toBeGreaterThan(0);
  });

  it("names the Web API URL and what to check when Slack cannot be reached, without a stack trace", async () => {
    slack = await FakeSlack.start({ transport: "http" });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const apiUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api/`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    adapter = await createSlackAdapter({ ...slack.adapterConfig(), apiUrl });
    const failure = await adapter.start(ignore).then(
      () => undefined,
      (error: unknown) => error,
    );
    adapter = undefined;
    expect(failure).toBeInstanceOf(Error);
    const error = failure as Error;
    // Not one of JavaScript's built-in error names: the CLI prints the message alone, no stack.
    expect(error.name).toBe("SlackUnreachableError");
    expect(error.message).toContain(apiUrl);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).toMatch(/slack\.apiUrl/);
  }, 20_000);

  it("refuses a bad bot token with what to do about it", async () => {
    slack = await FakeSlack.start({ transport: "http" });
    adapter = await createSlackAdapter({ ...slack.adapterConfig(), botToken: "xoxb-not-the-token" });
    await expect(adapter.start(ignore)).rejects.toThrow(
      /Slack rejected the bot token \(invalid_auth\).*Bot User OAuth Token/,
    );
    await expect(adapter.check()).rejects.toThrow(/invalid_auth/);
    expect(adapter.port).toBeUndefined();
  });

  it("refuses a token without the scopes it needs, naming them", async () => {
    slack = await FakeSlack.start({
      transport: "http",
      scopes: ["chat:write", "app_mentions:read", "commands"],
    });
    adapter = await createSlackAdapter(slack.adapterConfig());
    await expect(adapter.start(ignore)).rejects.toThrow(
      /missing the scopes channels:history, im:history: add them under OAuth & Permissions.*reinstall/,
    );
  });

  it("does not ask for im:history when DMs are off", async () => {
    slack = await FakeSlack.start({
      transport: "http",
      scopes: ALL_SCOPES.filter((scope) => scope !== "im:history"),
    });
    adapter = await createSlackAdapter({ ...slack.adapterConfig(), directMessages: false });
    await adapter.start(ignore);
  });

  it("starts without optional scopes and says which features are off", async () => {
    slack = await FakeSlack.start({
      transport: "http",
      scopes: ALL_SCOPES.filter((scope) => scope !== "reactions:write"),
    });
    const logger = createMemoryLogger();
    adapter = await createSlackAdapter(slack.adapterConfig(), { logger });
    await adapter.start(ignore);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: "warn", fields: { missing: "reactions:write" } }),
    );
  });

  it("connects over Socket Mode with a good app token", async () => {
    slack = await FakeSlack.start({ transport: "socket" });
    adapter = await createSlackAdapter(slack.adapterConfig());
    await adapter.check();
    await adapter.start(ignore);
    await expect.poll(() => slack.socket?.connected).toBe(true);
    expect(adapter.port).toBeUndefined();
  });

  it("refuses a bad app token in Socket Mode with what to do about it", async () => {
    slack = await FakeSlack.start({ transport: "socket" });
    adapter = await createSlackAdapter({ ...slack.adapterConfig(), appToken: "xapp-not-the-token" });
    await expect(adapter.check()).rejects.toThrow(
      /Slack rejected the app token \(invalid_auth\).*connections:write/,
    );
    await expect(adapter.start(ignore)).rejects.toThrow(/Slack rejected the app token \(invalid_auth\)/);
  });
});

describe("Slack configuration", () => {
  const cases = [
    {
      name: "neither app token nor signing secret",
      config: { botToken: "xoxb-1" },
      error: /set appToken \(Socket Mode\) or signingSecret/,
    },
    {
      name: "HTTP mode without a signing secret",
      config: { botToken: "xoxb-1", mode: "http" as const, appToken: "xapp-1" },
      error: /HTTP mode needs signingSecret/,
    },
    {
      name: "Socket Mode without an app token",
      config: { botToken: "xoxb-1", mode: "socket" as const, signingSecret: "s" },
      error: /Socket Mode needs appToken/,
    },
    {
      name: "a user token instead of a bot token",
      config: { botToken: "xoxp-1", signingSecret: "s" },
      error: /Bot User OAuth Token \(starts with xoxb-\)/,
    },
    {
      name: "a bot token where the app token goes",
      config: { botToken: "xoxb-1", appToken: "xoxb-2" },
      error: /app-level token \(starts with xapp-\)/,
    },
  ];
  for (const { name, config, error } of cases) {
    it(`explains ${name}`, async () => {
      await expect(createSlackAdapter(config)).rejects.toThrow(error);
    });
  }
});
