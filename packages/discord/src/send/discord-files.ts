import type { AdapterFiles, ConversationRef, FileMessage, FileToSend } from "@switchboard/core/adapter";
import { isInteractionMessageId } from "../commands/slash-commands.ts";
import { placeOf } from "../receive/places.ts";
import type { ChannelPoster } from "./channel-poster.ts";
import { discordNonce } from "./nonce.ts";

/** What a bot may attach to one message in a server without boosts (Discord's smallest upload limit). */
export const DISCORD_UPLOAD_LIMIT = 10 * 1024 * 1024;

/** The reference `upload` records: the bytes stay in the blob store until the post carries them. */
const INLINE = "inline";

/**
 * Files as message attachments. Discord takes a file only with the message that shows it (a
 * multipart post), and that post is idempotent by itself: the nonce, derived from the outbox's key
 * for this file and sent with `enforce_nonce`, makes a repeated post return the first message. So
 * `upload` puts nothing on the platform (it records that the bytes are ready) and `post` sends them.
 */
export function discordFiles(poster: () => ChannelPoster): AdapterFiles {
  return {
    maxUploadBytes: DISCORD_UPLOAD_LIMIT,
    async upload(_conversation: ConversationRef, _file: FileToSend): Promise<string> {
      return INLINE;
    },
    async post(message: FileMessage) {
      // A slash command's answer may be private: a file for it is not put into the channel.
      if (isInteractionMessageId(message.replyTo))
        throw new Error("files are not attached to slash-command answers on Discord");
      const id = await poster().sendFile(
        placeOf(message.conversation),
        { name: message.file.name, bytes: await bytesOf(message.file) },
        message.replyTo,
        discordNonce(message.idempotencyKey),
      );
      return { id, conversation: message.conversation };
    },
  };
}

/** The file whole: a Discord upload is one multipart body, and `maxUploadBytes` bounds it. */
async function bytesOf(file: FileToSend): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await file.open()) chunks.push(chunk);
  return Buffer.concat(chunks);
}
