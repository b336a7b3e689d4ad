import type { WebClient } from "@slack/web-api";
import {
  type AdapterAttachments,
  type AdapterFiles,
  type ConversationRef,
  type FileMessage,
  type FileToSend,
  fetchPlatformFile,
} from "@switchboard/core/adapter";
import { messageId, postTargetOf } from "../conversations.ts";
import { explainSlackError } from "../slack-api-errors.ts";

export const FILES_READ_HINT =
  "the Slack bot token needs the files:read scope to download files people share (OAuth & Permissions → Bot Token Scopes), then reinstall the app";

/** Slack's own file host; another origin only when the Web API itself is elsewhere (GovSlack, a test stand-in). */
export function slackFileOrigins(apiUrl: string): string[] {
  const api = new URL(apiUrl);
  return api.hostname === "slack.com"
    ? ["https://files.slack.com"]
    : [api.origin, `${api.protocol}//files.${api.host}`];
}

/** Downloads of shared files with the bot token, from Slack's file host only. */
export function slackAttachments(botToken: string, origins: readonly string[]): AdapterAttachments {
  return {
    open: (attachment, signal) =>
      fetchPlatformFile({
        url: String(attachment.ref.url ?? ""),
        name: attachment.name,
        platform: "Slack",
        allowedOrigins: origins,
        headers: { authorization: `Bearer ${botToken}` },
        signal,
        forbiddenHint: FILES_READ_HINT,
      }),
  };
}

/**
 * Files into threads the way `files.uploadV2` does it — `files.getUploadURLExternal`, the bytes to
 * the upload URL, `files.completeUploadExternal` with the channel and thread — in two steps the
 * outbox records separately: the file id once the bytes are up, then the share. After a crash
 * between them the same file id is shared (or found shared in the thread), never uploaded twice.
 */
export function slackFiles(client: WebClient, fetchImpl: typeof fetch = fetch): AdapterFiles {
  return {
    maxUploadBytes: 1024 * 1024 * 1024,
    async upload(_conversation: ConversationRef, file: FileToSend): Promise<string> {
      const target = await client.files
        .getUploadURLExternal({ filename: file.name, length: file.size })
        .catch((error: unknown) => explainSlackError("files.getUploadURLExternal", error));
      if (!target.upload_url || !target.file_id) throw new Error("Slack gave no upload URL for the file");
      const body = ReadableStream.from(await file.open());
      const response = await fetchImpl(target.upload_url, {
        method: "POST",
        headers: { "content-type": file.mediaType, "content-length": String(file.size) },
        body,
        duplex: "half",
      } as RequestInit);
      await response.body?.cancel();
      if (!response.ok) throw new Error(`Slack's upload URL answered HTTP ${response.status}`);
      return target.file_id;
    },
    async post(message: FileMessage) {
      const target = postTargetOf(message.conversation);
      if (target.kind === "ephemeral") throw new Error("files cannot be shared privately on Slack");
      const result = await client.files
        .completeUploadExternal({
          files: [{ id: message.upload, title: message.file.name }],
          channel_id: target.channel,
          ...(target.kind === "thread" ? { thread_ts: target.threadTs } : {}),
        })
        .catch((error: unknown) => explainSlackError("files.completeUploadExternal", error));
      const shared = result.files?.[0]?.shares;
      const places = { ...shared?.public } as Record<string, { ts?: string }[] | undefined>;
      const ts = places[target.channel]?.[0]?.ts;
      return {
        id: ts ? messageId(target.channel, ts) : `file:${message.upload}`,
        conversation: message.conversation,
      };
    },
    async findPosted(message: FileMessage) {
      const target = postTargetOf(message.conversation);
      if (target.kind !== "thread") return undefined;
      const page = await client.conversations
        .replies({ channel: target.channel, ts: target.threadTs, limit: 200 })
        .catch((error: unknown) => explainSlackError("conversations.replies", error));
      const found = page.messages?.find((posted) => posted.files?.some((file) => file.id === message.upload));
      return found?.ts
        ? { id: messageId(target.channel, found.ts), conversation: message.conversation }
        : undefined;
    },
  };
}
