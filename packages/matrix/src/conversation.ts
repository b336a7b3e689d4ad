import type { ConversationRef } from "@switchboard/core/adapter";

export const MATRIX_PLATFORM = "matrix";

/**
 * Conversation shapes (every one is in the contract harness's sampleConversations):
 * - `matrix:<roomId>:<rootEventId>` — a thread in a group room (or the reply chain under a
 *   top-level message in `reply` mode); the root is the event the conversation started from.
 * - `matrix:<roomId>` — a direct-message room, which is one conversation.
 */
export interface MatrixPlace {
  readonly roomId: string;
  readonly threadRoot?: string;
}

export function roomConversation(roomId: string): ConversationRef {
  return { platform: MATRIX_PLATFORM, path: [roomId] };
}

export function threadConversation(roomId: string, rootEventId: string): ConversationRef {
  return { platform: MATRIX_PLATFORM, path: [roomId, rootEventId] };
}

export class ForeignConversationError extends Error {
  constructor(conversation: ConversationRef) {
    super(`not a Matrix conversation: ${conversation.platform}:${conversation.path.join(":")}`);
    this.name = "ForeignConversationError";
  }
}

export function placeOf(conversation: ConversationRef): MatrixPlace {
  const [roomId, threadRoot, ...rest] = conversation.path;
  if (conversation.platform !== MATRIX_PLATFORM || !roomId?.startsWith("!") || rest.length > 0) {
    throw new ForeignConversationError(conversation);
  }
  return threadRoot === undefined ? { roomId } : { roomId, threadRoot };
}
