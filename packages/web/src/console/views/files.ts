import { formatBytes } from "@switchboard/core/host";
import { html } from "hono/html";
import type { TranscriptFile } from "../../activity/conversation-log.ts";
import type { Html } from "./layout.ts";

/**
 * Image types shown inline (thumbnails). Anything else — HTML, SVG, scripts a person sent — is only
 * ever downloaded, as bytes, never rendered by the console's origin.
 */
export const INLINE_IMAGES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
]);

/** Where the console serves a kept file (behind the token guard, like every console route). */
export function fileHref(file: TranscriptFile & { blob: string }): string {
  const query = new URLSearchParams({ name: file.name, ...(file.mediaType ? { type: file.mediaType } : {}) });
  return `/console/files/${file.blob}?${query}`;
}

/** A message's files: thumbnails for images, links for the rest, names for files not kept. */
export function filesView(files: readonly TranscriptFile[] | undefined): Html | string {
  if (!files?.length) return "";
  return html`<ul class="files" aria-label="Files">${files.map((file) => html`<li>${fileView(file)}</li>`)}</ul>`;
}

function fileView(file: TranscriptFile): Html {
  const about = [file.mediaType, file.size === undefined ? undefined : formatBytes(file.size)]
    .filter(Boolean)
    .join(" · ");
  const { blob } = file;
  if (blob === undefined)
    return html`<span class="file-name">${file.name}</span> <span class="sub">${about}</span>`;
  const href = fileHref({ ...file, blob });
  if (file.mediaType && INLINE_IMAGES.has(file.mediaType))
    return html`<a href="${href}" class="thumb"><img src="${href}" alt="${file.name}" loading="lazy"></a>
      <span class="file-name">${file.name}</span> <span class="sub">${about}</span>`;
  return html`<a href="${href}" download="${file.name}" class="file-name">${file.name}</a> <span class="sub">${about}</span>`;
}
