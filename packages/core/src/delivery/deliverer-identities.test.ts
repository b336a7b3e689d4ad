import { describe, expect, it } from "vitest";
import type { PostedMessage } from "../conversation/messages.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { Deliverer } from "./deliverer.ts";

const conversation = { platform: "test", path: ["dm-1"] };
const identities = {
  agents: { billing: { name: "Billing", icon: ":moneybag:" }, supervisor: { name: "Front desk" } },
  singleAgent: false,
};

class EditingAdapter extends RecordingAdapter {
  readonly edits: { posted: PostedMessage; text: string }[] = [];
  async edit(posted: PostedMessage, text: string): Promise<void> {
    this.edits.push({ posted, text });
  }
}

function delivererWith(withIdentities = true) {
  const adapter = new EditingAdapter();
  const deliverer = new Deliverer([adapter], new ConversationIndex(new MemoryStore()), {
    ...(withIdentities ? { identities } : {}),
  });
  return { adapter, deliverer };
}

describe("Deliverer and agent identities", () => {
  it.each([
    ["an agent with a display", "billing", { name: "Billing", icon: ":moneybag:" }],
    ["an agent without one", "scheduling", undefined],
    ["no agent (a command reply)", undefined, undefined],
  ])("posts %s with its identity, and the posted message keeps it", async (_case, agent, identity) => {
    const { adapter, deliverer } = delivererWith();
    const posted = await deliverer.post({ conversation, text: "Hi", ...(agent ? { agent } : {}) });
    expect(adapter.posts[0]?.identity).toEqual(identity);
    expect(posted.identity).toEqual(identity);
  });

  it("speaks as the bot when the team has no identities", async () => {
    const { adapter, deliverer } = delivererWith(false);
    await deliverer.post({ conversation, text: "Hi", agent: "billing" });
    expect(adapter.posts[0]?.identity).toBeUndefined();
  });

  it("edits a message known by id as the agent that writes it now", async () => {
    const { adapter, deliverer } = delivererWith();
    await deliverer.replace(deliverer.postedBy("m1", conversation, "supervisor"), "Text");
    await deliverer.replace(deliverer.postedBy("m1", conversation, "scheduling"), "Text");
    expect(adapter.edits.map((edit) => edit.posted.identity)).toEqual([{ name: "Front desk" }, undefined]);
  });
});
