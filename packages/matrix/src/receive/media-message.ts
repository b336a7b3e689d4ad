import type { InboundAttachment } from "@switchboard/core/adapter";
import { isRecord } from "./matrix-event.ts";

/** The message types that carry a file (`url`, or `file` in an encrypted room). */
export const MEDIA_TYPES: ReadonlySet<string> = new Set(["m.image", "m.file", "m.audio", "m.video"]);

/** `mxc://<server>/<media id>`: the only form of file URL the bot follows (on its own homeserver). */
const MXC = /^mxc:\/\/([A-Za-z0-9.:[\]-]{1,255})\/([A-Za-z0-9_-]{1,255})$/;

export function parseMxc(url: unknown): { server: string; mediaId: string } | undefined {
  const match = typeof url === "string" ? MXC.exec(url) : null;
  return match ? { server: match[1] ?? "", mediaId: match[2] ?? "" } : undefined;
}

export type MediaContent =
  | { readonly kind: "file"; readonly caption: string; readonly attachment: InboundAttachment }
  | { readonly kind: "skip"; readonly reason: string };

/**
 * An `m.image` / `m.file` / `m.audio` / `m.video` message's file, and its caption. Since Matrix 1.10
 * a message with a `filename` different from its `body` has the body as a caption; otherwise the body
 * is the file's name and there is no text. In an encrypted room the file is `content.file` (an
 * EncryptedFile with its key) instead of `content.url`. The homeserver's own media repository is
 * the only place it is fetched from; a URL that is not `mxc://` is not followed.
 */
export function mediaContent(msgtype: string, content: Readonly<Record<string, unknown>>): MediaContent {
  const body = typeof content.body === "string" ? content.body : "";
  const filename =
    typeof content.filename === "string" && content.filename !== "" ? content.filename : undefined;
  const info = isRecord(content.info) ? content.info : {};
  const encrypted = isRecord(content.file) ? content.file : undefined;
  const url = encrypted ? encrypted.url : content.url;
  if (!parseMxc(url)) return { kind: "skip", reason: `${msgtype} without an mxc:// file` };
  const name = filename ?? (body || defaultName(msgtype));
  const attachment: InboundAttachment = {
    name,
    ...(typeof info.mimetype === "string" ? { declaredType: info.mimetype } : {}),
    ...(typeof info.size === "number" && Number.isFinite(info.size) ? { declaredSize: info.size } : {}),
    // Voice messages as Element records them (MSC3245).
    ...(msgtype === "m.audio" && content["org.matrix.msc3245.voice"] !== undefined ? { voice: true } : {}),
    ref: encrypted ? { file: encrypted } : { url: String(url) },
  };
  return { kind: "file", caption: filename !== undefined && body !== filename ? body : "", attachment };
}

function defaultName(msgtype: string): string {
  return `${msgtype.slice(2)}`;
}
