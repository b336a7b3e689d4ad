import type { OutboundMessage } from "@switchboard/core/adapter";
import { roomConversation, threadConversation } from "../conversation.ts";
import type { WaitingEvent } from "./waiting-events.ts";

/**
 * The notice to the sender of a message whose key never arrived: a reply to it, where an answer
 * would have gone (the DM, or the message's thread), posted once per event (the idempotency key).
 */
export function resendNotice(entry: WaitingEvent, isDirect: boolean): OutboundMessage {
  const why =
    entry.withheld === undefined
      ? "the key to decrypt it never reached me"
      : `your app did not share its key with me (it says: “${entry.withheld}”)`;
  return {
    conversation: isDirect
      ? roomConversation(entry.roomId)
      : threadConversation(entry.roomId, entry.threadRoot ?? entry.eventId),
    text: `I could not read your message: ${why}. Please send it again.`,
    replyTo: entry.eventId,
    recipientId: entry.sender,
    idempotencyKey: `undecryptable-notice:${entry.eventId}`,
  };
}
