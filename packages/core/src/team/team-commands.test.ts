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
