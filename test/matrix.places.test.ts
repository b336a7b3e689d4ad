/**
 * Readable room names for the operator console: the Matrix adapter reads `m.room.name` (else the
 * canonical alias) from room state, once per room for a while, however many threads the room has.
 */
import { describe, expect, it } from "vitest";
import { threadConversation } from "../packages/matrix/src/conversation.ts";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";

const bots = useMatrixBots();

describe("matrix place names", () => {
  it("names a room by its m.room.name, asking the homeserver once for all its threads", async () => {
    const { homeserver, alice, bob, bot } = bots.world;
    const support = homeserver.state.createRoom({ members: [alice, bob, bot], name: "Customer support" });
    const running = await bots.start();
    const stateReads = () =>
      homeserver.requests.filter((request) => request.includes("/state/m.room.name")).length;

    const first = await running.adapter.describePlace(threadConversation(support, "$first"));
    const second = await running.adapter.describePlace(threadConversation(support, "$second"));
    expect(first).toEqual({ room: "Customer support" });
    expect(second).toEqual({ room: "Customer support" });
    expect(stateReads()).toBe(1);
  });

  it("has no name for a room without one (clients make one up from the members)", async () => {
    const running = await bots.start();
    expect(
      await running.adapter.describePlace(threadConversation(bots.world.group, "$root")),
    ).toBeUndefined();
  });
});
