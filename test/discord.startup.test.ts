import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../packages/discord/src/index.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";

const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

describe("Discord start-up errors tell the operator what to fix", () => {
  let fake: FakeDiscord | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it("a wrong token: rejected with a pointer to Reset Token", async () => {
    fake = await FakeDiscord.start();
    const adapter = await createDiscordAdapter({ token: "not-the-token", apiUrl: fake.apiUrl });
    const failure = adapter.start(async () => {});
    await expect(failure).rejects.toMatchObject({ name: "DiscordStartupError", failure: "invalid-token" });
    await expect(failure).rejects.toThrow(/Reset Token/);
    await expect(adapter.check()).rejects.toMatchObject({ failure: "invalid-token" });
  });

  it("the Message Content intent switched off in the portal: gateway close 4014, explained", async () => {
    fake = await FakeDiscord.start({ messageContentIntent: false });
    const adapter = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl });
    const failure = adapter.start(async () => {});
    await expect(failure).rejects.toMatchObject({ failure: "disallowed-intents" });
    await expect(failure).rejects.toThrow(/MESSAGE CONTENT INTENT/);
    expect(fake.gateway.identifies).toHaveLength(1);
    await expect(adapter.check()).rejects.toMatchObject({ failure: "disallowed-intents" });
  });

  it("Discord unreachable: says where it tried", async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}/api`;
    const adapter = await createDiscordAdapter({ token: "token", apiUrl });
    await expect(adapter.start(async () => {})).rejects.toMatchObject({ failure: "unreachable" });
    await expect(adapter.check()).rejects.toThrow(`Could not reach Discord at ${apiUrl}`);
  });

  it("check passes with a good token and the intent on, without opening a gateway session", async () => {
    fake = await FakeDiscord.start();
    const adapter = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl });
    await expect(adapter.check()).resolves.toEqual({ warnings: [] });
    expect(fake.gateway.identifies).toEqual([]);
  });

  it("refuses a config without a token, before connecting", async () => {
    await expect(createDiscordAdapter({ token: "" })).rejects.toThrow(/token is empty/);
  });
});
