import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../conversation/messages.ts";
import { OfflineChatModel } from "../models/offline-model.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { Team } from "./team.ts";
import { teamCommands } from "./team-commands.ts";
import { teamConfigSchema } from "./team-config.ts";

const config = teamConfigSchema.parse({
  supervisor: { prompt: "Route the user." },
  specialists: [{ name: "billing", description: "invoices", prompt: "Help with billing." }],
});

describe("/status", () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
  });

  async function statusFor(message: Partial<InboundMessage>): Promise<string> {
    store = await openStore("memory://");
    const team = new Team({
      config,
      routing: { sticky: true },
      limits: { maxIterations: 10, maxRepeatedToolCalls: 3, wallTimeSeconds: 60 },
      checkpointer: new MemorySaver(),
      store,
      modelFor: () => new OfflineChatModel(),
      describeModel: () => "test",
    });
    const status = teamCommands(team).find((command) => command.name === "status");
    const conversation = { platform: "matrix", path: ["!room:hs"] };
    const result = await status?.run({
      key: "matrix:!room%3Ahs",
      conversation,
      args: "",
      prefix: "!",
      message: {
        id: "$q",
        conversation,
        author: { id: "@alice:hs", isBot: false, isSelf: false },
        text: "!status",
        isDirect: true,
        mentionsBot: false,
        isEdit: false,
        sentAt: 0,
        ...message,
      },
    });
    return result?.reply ?? "";
  }

  it("says the conversation is end-to-end encrypted when the message came encrypted", async () => {
    expect(await statusFor({ encrypted: true })).toContain(
      "Encryption: end-to-end — your messages and my answers here are encrypted.",
    );
  });

  it("says nothing about encryption in a plain room", async () => {
    expect(await statusFor({})).not.toContain("Encryption");
  });
});

describe("/new and /reset when memory fails, and a turn when learnings cannot be read", () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close().catch(() => undefined);
  });

  const ref = { platform: "matrix", path: ["!room:hs"] };
  const key = "matrix:!room%3Ahs";
  const context = (name: string) => ({
    key,
    conversation: ref,
    args: "",
    prefix: "!",
    message: {
      id: `$${name}`,
      conversation: ref,
      author: { id: "@alice:hs", isBot: false, isSelf: false },
      text: `!${name}`,
      isDirect: true,
      mentionsBot: false,
      isEdit: false,
      sentAt: 0,
    },
  });

  it("clears the thread anyway and does not claim memory archived it", async () => {
    store = await openStore("memory://");
    const kinds: string[] = [];
    const team = new Team({
      config,
      routing: { sticky: true },
      limits: { maxIterations: 10, maxRepeatedToolCalls: 3, wallTimeSeconds: 60 },
      checkpointer: new MemorySaver(),
      store,
      modelFor: () => new OfflineChatModel(),
      describeModel: () => "test",
      freshStart: async (_key, _user, kind) => {
        kinds.push(kind);
        throw new Error("the archive is down");
      },
    });
    await team.activeAgents.set(key, "billing");
    const reset = teamCommands(team).find((command) => command.name === "reset");
    const reply = (await reset?.run(context("reset")))?.reply ?? "";
    expect(reply).toContain("Fresh start");
    expect(reply).toContain("my memory of it is unchanged");
    expect(await team.activeAgents.get(key)).toBeUndefined();
    const fresh = teamCommands(team).find((command) => command.name === "new");
    expect((await fresh?.run(context("new")))?.reply).toContain("New start");
    expect(kinds).toEqual(["reset", "new"]);
  });

  it("answers without learnings when they cannot be read", async () => {
    store = await openStore("memory://");
    const closed = await openStore("sqlite::memory:");
    await closed.close();
    await expect(async () => closed.namespace<string>("learnings").get("user:x")).rejects.toThrow();
    const team = new Team({
      config,
      routing: { sticky: true },
      limits: { maxIterations: 10, maxRepeatedToolCalls: 3, wallTimeSeconds: 60 },
      checkpointer: new MemorySaver(),
      store,
      modelFor: () => new OfflineChatModel(),
      describeModel: () => "test",
      // A store that is gone: reading the learnings throws.
      learningsFor: async () => String(await closed.namespace<string>("learnings").get("user:x")),
    });
    const outcome = await team.run({
      key,
      userId: "@alice:hs",
      text: "hello",
      signal: new AbortController().signal,
    });
    expect(outcome.kind).toBe("answered");
  });
});
