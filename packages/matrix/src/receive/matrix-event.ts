/** The fields of a client-server API event we read. Everything arrives untyped from the SDK; `asEvent` checks it. */
export interface MatrixEvent {
  readonly event_id: string;
  readonly type: string;
  readonly sender: string;
  readonly origin_server_ts: number;
  readonly content: Readonly<Record<string, unknown>>;
  readonly state_key?: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function asEvent(value: unknown): MatrixEvent | undefined {
  if (!isRecord(value)) return undefined;
  const { event_id, type, sender, origin_server_ts, content, state_key } = value;
  if (typeof event_id !== "string" || typeof type !== "string" || typeof sender !== "string")
    return undefined;
  return {
    event_id,
    type,
    sender,
    origin_server_ts: typeof origin_server_ts === "number" ? origin_server_ts : 0,
    content: isRecord(content) ? content : {},
    ...(typeof state_key === "string" ? { state_key } : {}),
  };
}

export interface Relation {
  readonly relType?: string;
  /** The related event: thread root for `m.thread`, edited event for `m.replace`. */
  readonly eventId?: string;
  /** The event `m.in_reply_to` names, if any. */
  readonly inReplyTo?: string;
  /** In a thread: `m.in_reply_to` is only there for clients without threads, not a real reply. */
  readonly isFallingBack: boolean;
}

export function relationOf(content: Readonly<Record<string, unknown>>): Relation {
  const relates = content["m.relates_to"];
  if (!isRecord(relates)) return { isFallingBack: false };
  const reply = relates["m.in_reply_to"];
  const inReplyTo = isRecord(reply) && typeof reply.event_id === "string" ? reply.event_id : undefined;
  return {
    ...(typeof relates.rel_type === "string" ? { relType: relates.rel_type } : {}),
    ...(typeof relates.event_id === "string" ? { eventId: relates.event_id } : {}),
    ...(inReplyTo === undefined ? {} : { inReplyTo }),
    isFallingBack: relates.is_falling_back === true,
  };
}

/** The thread an event belongs to, if it is in one. */
export function threadRootOf(event: MatrixEvent): string | undefined {
  const relation = relationOf(event.content);
  return relation.relType === "m.thread" ? relation.eventId : undefined;
}
