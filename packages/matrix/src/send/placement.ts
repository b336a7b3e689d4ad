import type { MatrixPlace } from "../conversation.ts";

export type ReplyMode = "thread" | "reply";

/** Where in the room a posted message goes. */
export type Placement =
  | { readonly kind: "thread"; readonly root: string; readonly inReplyTo: string }
  | { readonly kind: "reply"; readonly inReplyTo: string }
  | { readonly kind: "plain" };

export interface PlacementFacts {
  readonly place: MatrixPlace;
  /** The message being answered. */
  readonly replyTo?: string;
  /** The thread that message was written in, if it was in one. */
  readonly replyToThread?: string;
  readonly replyMode: ReplyMode;
}

/**
 * Answers go where the user will look: into the conversation's thread (thread mode), as a reply to
 * the question (reply mode, DMs), and into the thread the question was asked in whenever there was one.
 */
export function choosePlacement({ place, replyTo, replyToThread, replyMode }: PlacementFacts): Placement {
  if (place.threadRoot !== undefined && replyMode === "thread") {
    return { kind: "thread", root: place.threadRoot, inReplyTo: replyTo ?? place.threadRoot };
  }
  if (replyToThread !== undefined)
    return { kind: "thread", root: replyToThread, inReplyTo: replyTo ?? replyToThread };
  if (replyTo !== undefined) return { kind: "reply", inReplyTo: replyTo };
  return { kind: "plain" };
}

/** True when placing needs to know the thread of the message answered (it is not in the conversation key). */
export function needsReplyToThread(place: MatrixPlace, replyMode: ReplyMode): boolean {
  return place.threadRoot === undefined || replyMode === "reply";
}

/** `m.relates_to` for a placement: threads carry a fallback reply for clients without thread support. */
export function relationFor(placement: Placement): Record<string, unknown> | undefined {
  switch (placement.kind) {
    case "thread":
      return {
        rel_type: "m.thread",
        event_id: placement.root,
        is_falling_back: true,
        "m.in_reply_to": { event_id: placement.inReplyTo },
      };
    case "reply":
      return { "m.in_reply_to": { event_id: placement.inReplyTo } };
    case "plain":
      return undefined;
  }
}
