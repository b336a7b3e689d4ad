import type { InboundAttachment } from "@switchboard/core/adapter";

/** What the adapter reads of one attachment, from discord.js's `Attachment` or a REST payload. */
export interface AttachmentFacts {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly contentType?: string | null;
  readonly size?: number;
}

/** Where a Discord attachment is kept: the message it came with (to ask for a fresh link) and its CDN link. */
export interface DiscordFileRef extends Record<string, unknown> {
  readonly channelId: string;
  readonly messageId: string;
  readonly attachmentId: string;
  /** Discord's signed CDN link as the message carried it; it expires (`ex`), then the message is read again. */
  readonly url: string;
}

/**
 * The attachments of a Discord message as the engine takes them. Discord fills them in (name,
 * content type, size, a signed link on its CDN): nothing here comes from what the sender wrote. A
 * voice message (the message's IsVoiceMessage flag) is named so, and transcribed like any audio.
 */
export function discordAttachments(
  message: { readonly channelId: string; readonly id: string; readonly isVoiceMessage: boolean },
  attachments: Iterable<AttachmentFacts>,
): InboundAttachment[] {
  return [...attachments].map((attachment) => {
    const ref: DiscordFileRef = {
      channelId: message.channelId,
      messageId: message.id,
      attachmentId: attachment.id,
      url: attachment.url,
    };
    return {
      name: attachment.name || `attachment-${attachment.id}`,
      ...(attachment.contentType ? { declaredType: attachment.contentType } : {}),
      ...(attachment.size === undefined ? {} : { declaredSize: attachment.size }),
      ...(message.isVoiceMessage ? { voice: true } : {}),
      ref,
    };
  });
}

/** A reference this adapter wrote, back from the queue (plain JSON); undefined for anything else. */
export function discordFileRef(ref: Readonly<Record<string, unknown>>): DiscordFileRef | undefined {
  const { channelId, messageId, attachmentId, url } = ref;
  const snowflake = (value: unknown): value is string =>
    typeof value === "string" && /^\d{1,25}$/.test(value);
  if (!snowflake(channelId) || !snowflake(messageId) || !snowflake(attachmentId) || typeof url !== "string")
    return undefined;
  return { channelId, messageId, attachmentId, url };
}
