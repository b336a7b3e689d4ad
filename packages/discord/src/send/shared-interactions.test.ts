import { openStore } from "@switchboard/core";
import type { Store } from "@switchboard/core/adapter";
import { afterEach, describe, expect, it } from "vitest";
import { SharedInteractions, TOKEN_LIFETIME_MS } from "./shared-interactions.ts";

describe("SharedInteractions", () => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  async function shared(now: () => number) {
    store = await openStore("memory://");
    return new SharedInteractions(store.namespace<string>("discord"), now);
  }
  const command = { applicationId: "app-1", token: "token-1", ephemeral: true };

  it("finds a kept interaction until a little before Discord stops taking its token, then never", async () => {
    let now = 1_000;
    const interactions = await shared(() => now);
    await interactions.keep("interaction-1", { ...command, usedAt: 1_000 });
    expect(await interactions.find("interaction-1")).toEqual({
      ...command,
      expiresAt: 1_000 + TOKEN_LIFETIME_MS,
      answered: false,
    });
    expect(await interactions.find("interaction-2")).toBeUndefined();
    now = 1_000 + TOKEN_LIFETIME_MS - 1;
    expect(await interactions.find("interaction-1")).toBeDefined();
    now = 1_000 + TOKEN_LIFETIME_MS;
    expect(await interactions.find("interaction-1")).toBeUndefined();
  });

  it("keeps nothing for a command whose token is already past use", async () => {
    const interactions = await shared(() => 1_000 + TOKEN_LIFETIME_MS);
    await interactions.keep("interaction-1", { ...command, usedAt: 1_000 }, "500");
    expect(await interactions.find("interaction-1")).toBeUndefined();
    expect(await interactions.isAnsweringConversation("500")).toBe(false);
  });

  it("knows a command's own conversation until its answer, and which command a posted message answered", async () => {
    const interactions = await shared(() => 1_000);
    await interactions.keep("interaction-1", { ...command, usedAt: 1_000 }, "500");
    expect(await interactions.isAnsweringConversation("500")).toBe(true);
    expect(await interactions.isAnsweringConversation("501")).toBe(false);
    await interactions.recordPost("interaction-1", "900");
    expect(await interactions.isAnsweringConversation("500")).toBe(false);
    expect((await interactions.find("interaction-1"))?.answered).toBe(true);
    expect(await interactions.originOf("900")).toBe("interaction-1");
    expect(await interactions.originOf("901")).toBeUndefined();
  });
});
