import { parseBlobId, safeFileName } from "@switchboard/core/host";
import type { Context, Hono } from "hono";
import type { TranscriptMessage } from "../../activity/conversation-log.ts";
import type { ConsoleDeps } from "../console-deps.ts";
import { INLINE_IMAGES } from "../views/files.ts";

export function fileRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/files/:space/:digest", (c) => serveFile(c, deps));
}

async function serveFile(c: Context, deps: ConsoleDeps): Promise<Response> {
  const ref = parseBlobId(`${c.req.param("space")}/${c.req.param("digest")}`);
  const body = ref ? await deps.files?.open(ref) : undefined;
  if (!body) return c.text("404: this file is not kept any more", 404);
  const type = c.req.query("type") ?? "";
  const name = safeFileName(c.req.query("name") ?? "", "file");
  const inline = INLINE_IMAGES.has(type);
  return c.body(ReadableStream.from(body), 200, {
    "content-type": inline ? type : "application/octet-stream",
    "content-disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(name)}`,
    "x-content-type-options": "nosniff",
    "cache-control": "private, max-age=3600",
  });
}

/**
 * The transcript with each person's files as a turn read them: known by the name and type the
 * platform (or browser) claimed when the message arrives, and by their bytes — the sniffed type and
 * where they are kept — once downloaded.
 */
export async function withDownloadedFiles(
  deps: ConsoleDeps,
  platform: string,
  messages: readonly TranscriptMessage[],
): Promise<TranscriptMessage[]> {
  const files = deps.files;
  if (!files) return [...messages];
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== "user" || !message.files?.length) return message;
      const downloaded = await files.downloaded(platform, message.id);
      return downloaded.length > 0 ? { ...message, files: downloaded } : message;
    }),
  );
}
