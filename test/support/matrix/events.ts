import type { ObservedPost } from "@switchboard/core/testing";
import type { FakeHomeserver } from "./fake-homeserver.ts";
import type { RoomEvent } from "./homeserver-state.ts";

/** How Element writes a mention: a pill in the HTML, the name in the body, the MXID in m.mentions. */
export function botMention(botUserId: string, displayName: string, text: string): Record<string, unknown> {
  return {
    body: `${displayName}: ${text}`,
    format: "org.matrix.custom.html",
    formatted_body: `<a href="https://matrix.to/#/${botUserId}">${displayName}</a>: ${text}`,
    "m.mentions": { user_ids: [botUserId] },
  };
}

/** A message in a thread, as thread-aware clients send it. */
export function threadMessage(root: string, latest: string): Record<string, unknown> {
  return {
    "m.relates_to": {
      rel_type: "m.thread",
      event_id: root,
      is_falling_back: true,
      "m.in_reply_to": { event_id: latest },
    },
  };
}

export interface Relates {
  rel_type?: string;
  event_id?: string;
  is_falling_back?: boolean;
  "m.in_reply_to"?: { event_id?: string };
}

export function relatesOf(event: RoomEvent): Relates {
  return (event.content["m.relates_to"] as Relates | undefined) ?? {};
}

/** A bot post as the contract sees it: thread → `[room, root]`, a DM room → `[room]`. */
export function observePost(event: RoomEvent, homeserver: FakeHomeserver): ObservedPost {
  const relates = relatesOf(event);
  const room = homeserver.state.room(event.room_id);
  const joined = [...room.members.values()].filter((member) => member.membership === "join").length;
  const path =
    relates.rel_type === "m.thread" && relates.event_id
      ? [event.room_id, relates.event_id]
      : joined === 2
        ? [event.room_id]
        : [event.room_id, relates["m.in_reply_to"]?.event_id ?? event.event_id];
  const replyTo = relates["m.in_reply_to"]?.event_id;
  const text =
    typeof event.content.formatted_body === "string"
      ? event.content.formatted_body
      : String(event.content.body);
  return {
    id: event.event_id,
    conversation: { platform: "matrix", path },
    text,
    ...(replyTo === undefined ? {} : { replyTo }),
  };
}
