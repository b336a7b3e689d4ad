/** What the bot does when invited to an encrypted room it cannot read (E2EE not active). */
export type EncryptedRoomPolicy = "explain" | "decline";

/**
 * Posted once, in plain text, when the bot joins an encrypted room it cannot read: without it, the
 * room's members write to a bot that stays silent. Element encrypts new rooms and DMs by default,
 * so the way out is named.
 */
export const ENCRYPTED_ROOM_NOTICE =
  "This room is end-to-end encrypted, and I cannot read encrypted messages, so I will not answer here. " +
  "To talk with me, create a room with encryption turned off (in Element: New room → turn off " +
  "“Enable end-to-end encryption”) and invite me there.";

/** The reason given when declining such an invite (shown to the inviter by most clients). */
export const ENCRYPTED_ROOM_DECLINE_REASON =
  "This bot cannot read end-to-end encrypted rooms; invite it to a room with encryption turned off.";
