import {
  type AdapterAttachments,
  type AttachmentBody,
  AttachmentFetchError,
  ExpiredFileLinkError,
  fetchPlatformFile,
  type InboundAttachment,
} from "@switchboard/core/adapter";
import { type APIMessage, type Client, DiscordAPIError, RESTJSONErrorCodes, Routes } from "discord.js";
import { type DiscordFileRef, discordFileRef } from "./message-files.ts";

export const READ_HISTORY_HINT =
  "the bot needs the Read Message History permission in that channel to renew expired Discord file links";

/** Discord's CDN hosts; another origin only when the API itself is elsewhere (a test stand-in). */
export function discordFileOrigins(apiUrl: string): string[] {
  const api = new URL(apiUrl);
  return api.hostname === "discord.com"
    ? ["https://cdn.discordapp.com", "https://media.discordapp.net"]
    : [api.origin];
}

/** Whether a signed CDN link has passed the expiry it carries (`ex`: hex Unix seconds). */
export function linkExpired(url: string, nowMs: number): boolean {
  let expiry: string | null;
  try {
    expiry = new URL(url).searchParams.get("ex");
  } catch {
    return false;
  }
  if (!expiry || !/^[0-9a-f]{1,12}$/i.test(expiry)) return false;
  return Number.parseInt(expiry, 16) * 1000 <= nowMs;
}

/**
 * Downloads of message attachments from Discord's CDN. Links are signed and expire (about a day
 * after the message is read): a link past its `ex`, or one the CDN answers as gone, is renewed by
 * reading the message again over REST — the fresh link Discord puts there — and fetched once more.
 * The CDN takes no credentials: the bot token is never sent to it.
 */
export function discordAttachmentDownloads(options: {
  readonly client: () => Client;
  readonly origins: readonly string[];
  readonly now?: () => number;
  readonly fetchImpl?: typeof fetch;
}): AdapterAttachments {
  const now = options.now ?? Date.now;
  const download = (attachment: InboundAttachment, url: string, signal: AbortSignal) =>
    fetchPlatformFile({
      url,
      name: attachment.name,
      platform: "Discord",
      allowedOrigins: options.origins,
      signal,
      // The CDN answers an expired signature 404 (sometimes 403); a deleted file too — the message says which.
      expiredStatuses: [403, 404],
      ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
    });
  return {
    async open(attachment: InboundAttachment, signal: AbortSignal): Promise<AttachmentBody> {
      const ref = discordFileRef(attachment.ref);
      if (!ref)
        throw new AttachmentFetchError(`${attachment.name} has no Discord file reference`, {
          userMessage: `I could not open ${attachment.name}: it is not stored on Discord.`,
        });
      if (!linkExpired(ref.url, now())) {
        try {
          return await download(attachment, ref.url, signal);
        } catch (error) {
          if (!(error instanceof ExpiredFileLinkError)) throw error;
        }
      }
      const fresh = await freshLink(options.client(), ref, attachment.name);
      try {
        return await download(attachment, fresh, signal);
      } catch (error) {
        if (!(error instanceof ExpiredFileLinkError)) throw error;
        throw new AttachmentFetchError(
          `Discord's CDN does not serve ${attachment.name}, even on a fresh link`,
          {
            userMessage: `${attachment.name} is no longer available on Discord; please send it again.`,
            ...(error.status === undefined ? {} : { status: error.status }),
            cause: error,
          },
        );
      }
    },
  };
}

/** The attachment's link as Discord gives it now, read from its message. */
async function freshLink(client: Client, ref: DiscordFileRef, name: string): Promise<string> {
  let message: APIMessage;
  try {
    message = (await client.rest.get(Routes.channelMessage(ref.channelId, ref.messageId))) as APIMessage;
  } catch (error) {
    if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage)
      throw new AttachmentFetchError(`the message with ${name} was deleted`, {
        userMessage: `${name} is no longer available on Discord (its message was deleted).`,
        status: error.status,
        cause: error,
      });
    if (error instanceof DiscordAPIError && (error.status === 403 || error.status === 401))
      throw new AttachmentFetchError(`Discord refused to show the message with ${name} again`, {
        userMessage: `The link to ${name} has expired and I am not allowed to renew it; please send the file again.`,
        operatorHint: READ_HISTORY_HINT,
        status: error.status,
        cause: error,
      });
    throw new AttachmentFetchError(`could not read the message with ${name} again to renew its link`, {
      userMessage: `The link to ${name} has expired and I could not renew it just now; please send the file again.`,
      cause: error,
    });
  }
  const url = message.attachments.find((attachment) => attachment.id === ref.attachmentId)?.url;
  if (!url)
    throw new AttachmentFetchError(`the message no longer has ${name}`, {
      userMessage: `${name} is no longer available on Discord (it was removed from its message).`,
    });
  return url;
}
