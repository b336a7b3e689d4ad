import { openStore } from "@switchboard/core";
import type { AdapterHarness, ObservedPost, SimulatedMessage } from "@switchboard/core/testing";
import { createMatrixAdapter } from "../../../packages/matrix/src/index.ts";
import { botMention, observePost, threadMessage } from "./events.ts";
import { FakeHomeserver } from "./fake-homeserver.ts";
import type { RoomEvent } from "./homeserver-state.ts";

/** The contract harness: the real adapter and matrix-bot-sdk against the homeserver stand-in. */
export async function createMatrixHarness(): Promise<AdapterHarness> {
  const homeserver = await FakeHomeserver.start();
  const bot = homeserver.registerUser("switchboard", { displayName: "Switchboard", token: "bot-token" });
  const alice = homeserver.registerUser("alice", { displayName: "Alice", token: "alice-token" });
  const bob = homeserver.registerUser("bob", { token: "bob-token" });
  const otherBot = homeserver.registerUser("helper-bot", { token: "helper-token" });
  const group = homeserver.state.createRoom({ members: [alice, bob, otherBot, bot] });
  const dm = homeserver.state.createRoom({ members: [alice, bot] });
  homeserver.state.markDirect(bot, alice, dm);
  const store = await openStore("memory://");
  const adapter = await createMatrixAdapter(
    { homeserverUrl: homeserver.url, accessToken: "bot-token", syncTimeoutMs: 5_000 },
    { store },
  );
  let last: { roomId: string; eventId: string } | undefined;

  const latestInThread = (roomId: string, root: string) =>
    homeserver.state
      .room(roomId)
      .events.map((stored) => stored.event)
      .filter(
        (event: RoomEvent) =>
          (event.content["m.relates_to"] as { event_id?: string } | undefined)?.event_id === root,
      )
      .at(-1)?.event_id ?? root;

  return {
    adapter,
    sampleConversations: [
      { platform: "matrix", path: [group, "$ev12_abc"] },
      { platform: "matrix", path: [dm] },
    ],
    platformMessageLimit: 65_536,
    measure: (text) => Buffer.byteLength(text, "utf8"),
    async userSays(message: SimulatedMessage) {
      const place = message.place;
      const roomId = place === "channel" ? group : place === "dm" ? dm : (place.conversation.path[0] ?? "");
      const root = typeof place === "object" ? place.conversation.path[1] : undefined;
      const sender = message.from === "self" ? bot : message.from === "other-bot" ? otherBot : alice;
      const content: Record<string, unknown> = {
        msgtype: message.from === "other-bot" ? "m.notice" : "m.text",
        ...(message.mention ? botMention(bot, "Switchboard", message.text) : { body: message.text }),
        ...(root === undefined ? {} : threadMessage(root, latestInThread(roomId, root))),
        ...(message.replyTo === undefined
          ? {}
          : { "m.relates_to": { "m.in_reply_to": { event_id: message.replyTo } } }),
      };
      const eventId = homeserver.userSends(roomId, sender, content);
      last = { roomId, eventId };
      return eventId;
    },
    async redeliverLast() {
      if (last) homeserver.state.redeliver(last.roomId, last.eventId);
    },
    posts(): ObservedPost[] {
      return homeserver.eventsFrom(bot).map((event) => observePost(event, homeserver));
    },
    async close() {
      await adapter.stop();
      await homeserver.close();
      await store.close();
    },
  };
}
