/**
 * Files that tools return (an MCP tool's image or resource, an HTTP tool answering with a PDF) become
 * files the bot sends: kept in the blob store under the conversation's space, typed by their bytes,
 * and carried as the tool result's artifact (references only) to the delivery, which uploads them
 * after the answer. The model reads one line per file instead of the bytes.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type BlobStore, spaceOf } from "./blobs/blob-store.ts";
import { writeBlob } from "./blobs/write-blob.ts";
import { sniffMediaType } from "./media-type.ts";
import { formatBytes, safeFileName } from "./safe-name.ts";
import { FILES_ARTIFACT_KEY, type OutboundFile } from "./stored-attachment.ts";

/** Where tools keep the files they return, and the largest file kept. */
export interface ToolFiles {
  readonly blobs: BlobStore;
  readonly maxBytes: number;
}

/** A file a tool produced, before it is kept. */
export interface ToolFileSource {
  /** As the tool's far side named it (a header, a URI): cleaned before use. */
  readonly name: string;
  /** What the far side said it is; the bytes decide where they can. */
  readonly declaredType?: string;
  readonly body: AsyncIterable<Uint8Array>;
}

export type KeptToolFile =
  | { readonly kind: "kept"; readonly file: OutboundFile }
  | { readonly kind: "too-large"; readonly name: string };

/** The conversation a tool runs for: its key is the LangGraph thread. */
export function conversationOfTool(config: RunnableConfig | undefined): string {
  const key = config?.configurable?.thread_id;
  if (typeof key !== "string" || key === "")
    throw new Error("a file from a tool needs the run's conversation");
  return key;
}

/** Keeps one file a tool returned, streamed and stopped at `maxBytes`. */
export async function keepToolFile(
  files: ToolFiles,
  key: string,
  source: ToolFileSource,
  onOverflow?: () => void,
): Promise<KeptToolFile> {
  const name = safeFileName(source.name, "file");
  const written = await writeBlob(files.blobs, spaceOf(key), source.body, {
    maxBytes: files.maxBytes,
    ...(onOverflow ? { onOverflow } : {}),
  });
  if (written.kind === "too-large") return { kind: "too-large", name };
  const sniffed = await sniffMediaType(written.head, name);
  // Text has no signature: a declared text type (CSV, Markdown) says more than the generic guess.
  const declared = source.declaredType?.split(";")[0]?.trim().toLowerCase();
  const mediaType =
    sniffed.kind === "text" && sniffed.mediaType === "text/plain" && declared?.startsWith("text/")
      ? declared
      : sniffed.mediaType;
  return {
    kind: "kept",
    file: { name: withExtension(name, mediaType), mediaType, size: written.size, blob: written.ref },
  };
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "application/pdf": "pdf",
  "text/csv": "csv",
  "text/plain": "txt",
  "text/markdown": "md",
  "application/json": "json",
  "application/zip": "zip",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/wav": "wav",
  "video/mp4": "mp4",
};

/** A name without an extension gets the one of its type, so the platform shows (and opens) it right. */
function withExtension(name: string, mediaType: string): string {
  const extension = EXTENSIONS[mediaType];
  return extension && !/\.[A-Za-z0-9]{1,10}$/.test(name) ? `${name}.${extension}` : name;
}

/** The line the model reads for a file it will not see: attached after the answer. */
export function fileResultLine(file: OutboundFile): string {
  return `Returned the file ${file.name} (${file.mediaType}, ${formatBytes(file.size)}). It will be attached after your answer; do not paste its contents.`;
}

/** A tool result carrying files as its artifact (what the delivery uploads), with `content` for the model. */
export function toolResultWithFiles(
  config: RunnableConfig | undefined,
  toolName: string,
  content: string,
  files: readonly OutboundFile[],
): ToolMessage {
  const callId = config?.configurable?.tool_call_id;
  return new ToolMessage({
    tool_call_id: typeof callId === "string" ? callId : "",
    name: toolName,
    content,
    ...(files.length > 0 ? { artifact: { [FILES_ARTIFACT_KEY]: [...files] } } : {}),
  });
}
