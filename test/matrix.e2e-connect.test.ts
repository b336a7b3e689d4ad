import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { createMatrixAdapter } from "../packages/matrix/src/index.ts";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";
import { relatesOf } from "./support/matrix/events.ts";

const bots = useMatrixBots();
const { start, stop } = bots;

const say = (body: string) =>
  bots.world.homeserver.userSends(bots.world.dm, bots.world.alice, { msgtype: "m.text", body });
const answerTo = (id: string) =>
  waitFor(`the bot's answer to ${id}`, () =>
    bots.world.homeserver
      .eventsFrom(bots.world.bot)
      .find((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id),
  );

describe("matrix end to end: password login", () => {
  const passwordConfig = { accessToken: undefined, userId: "@switchboard:hs.test", password: "bot-password" };

  it("logs in once and keeps the token in the store across restarts", async () => {
    const first = await start({ config: passwordConfig });
    await answerTo(say("via password"));
    await stop(first);
    await start({ config: passwordConfig });
    await answerTo(say("after restart"));
    expect(bots.world.homeserver.logins).toEqual(["@switchboard:hs.test"]);
  });

  it("logs in again when the kept token stops working", async () => {
    const first = await start({ config: passwordConfig });
    await stop(first);
    bots.world.homeserver.revokeTokens("@switchboard:hs.test");
    const second = await start({ config: passwordConfig });
    await answerTo(say("still here"));
    expect(bots.world.homeserver.logins).toHaveLength(2);
    expect(
      second.logger.lines.some((line) => /kept Matrix access token was rejected/.test(line.message)),
    ).toBe(true);
  });

  it("refuses to start with a wrong password, saying what to fix", async () => {
    await expect(start({ config: { ...passwordConfig, password: "wrong" } })).rejects.toThrow(
      /refused the login for @switchboard:hs.test: check matrix.userId and matrix.password/,
    );
  });
});

describe("matrix adapter check (switchboard doctor)", () => {
  const check = async (config: Record<string, unknown>) => {
    const adapter = await createMatrixAdapter(
      { homeserverUrl: bots.world.homeserver.url, ...config },
      { logger: createMemoryLogger() },
    );
    await adapter.check();
  };

  it.each([
    ["a working token", { accessToken: "bot-token" }, null],
    [
      "a token the homeserver does not know",
      { accessToken: "stale" },
      /rejected matrix.accessToken \(M_UNKNOWN_TOKEN/,
    ],
    [
      "a token of another account",
      { accessToken: "alice-token", userId: "@switchboard:hs.test" },
      /belongs to @alice:hs.test/,
    ],
    [
      "a wrong password",
      { userId: "@switchboard:hs.test", password: "nope" },
      /check matrix.userId and matrix.password/,
    ],
  ])("%s", async (_name, config, error) => {
    if (error === null) await expect(check(config)).resolves.toBeUndefined();
    else await expect(check(config)).rejects.toThrow(error);
  });

  it("names the homeserver it cannot reach", async () => {
    const unreachable = await createMatrixAdapter(
      { homeserverUrl: "http://127.0.0.1:9", accessToken: "t" },
      {},
    );
    await expect(unreachable.check()).rejects.toThrow(
      /cannot talk to the Matrix homeserver at http:\/\/127.0.0.1:9/,
    );
  });

  it("rejects a configuration with neither token nor password", async () => {
    await expect(createMatrixAdapter({ homeserverUrl: bots.world.homeserver.url })).rejects.toThrow(
      /accessToken, or matrix.userId and matrix.password/,
    );
  });
});
