import type { InboundAttachment } from "@switchboard/core/adapter";

/**
 * The `files` of a Slack message event as attachments. Slack puts them there (the event is signed),
 * with `url_private_download` on Slack's own file host; files Slack will not serve (over the plan's
 * limit, deleted, or external links to other services) are left out.
 */
export function slackFiles(files: unknown): InboundAttachment[] {
  if (!Array.isArray(files)) return [];
  return files.flatMap((file: unknown): InboundAttachment[] => {
    if (typeof file !== "object" || file === null) return [];
    const record = file as Record<string, unknown>;
    const url = record.url_private_download ?? record.url_private;
    if (typeof url !== "string" || typeof record.id !== "string") return [];
    if (record.is_external === true || record.mode === "tombstone" || record.mode === "hidden_by_limit")
      return [];
    const name = typeof record.name === "string" && record.name !== "" ? record.name : `${record.id}`;
    return [
      {
        name,
        ...(typeof record.mimetype === "string" ? { declaredType: record.mimetype } : {}),
        ...(typeof record.size === "number" ? { declaredSize: record.size } : {}),
        // Slack's voice and video clips recorded in the client.
        ...(record.subtype === "slack_audio" || record.subtype === "slack_video" ? { voice: true } : {}),
        ref: { fileId: record.id, url },
      },
    ];
  });
}
