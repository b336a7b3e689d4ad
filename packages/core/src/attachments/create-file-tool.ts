import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { type BlobStore, spaceOf } from "./blobs/blob-store.ts";
import { writeBytes } from "./blobs/write-blob.ts";
import { formatBytes, safeFileName } from "./safe-name.ts";
import type { OutboundFile } from "./stored-attachment.ts";
import { conversationOfTool, toolResultWithFiles } from "./tool-files.ts";

export const CREATE_FILE = "create_file";

const TYPES = {
  "text/plain": "txt",
  "text/csv": "csv",
  "text/markdown": "md",
  "application/json": "json",
} as const;
type FileType = keyof typeof TYPES;

function typeOf(name: string, given: FileType | undefined): FileType {
  if (given) return given;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  const found = Object.entries(TYPES).find(([, known]) => known === extension);
  return (found?.[0] as FileType | undefined) ?? "text/plain";
}

/**
 * `create_file` for the team's agents: text, CSV, Markdown or JSON the agent writes, sent to the
 * thread as a native file after the answer's text. The bytes go to the blob store under the
 * conversation's space; the tool result carries only the reference (as its artifact), so the
 * history and the run journal stay small and a re-run after a crash sends the same file.
 */
export function createFileTool(blobs: BlobStore, options: { maxBytes: number }): StructuredToolInterface {
  return tool(
    async ({ name, content, media_type }, config: RunnableConfig) => {
      const key = conversationOfTool(config);
      const mediaType = typeOf(name, media_type);
      const fileName = withExtension(safeFileName(name, `file.${TYPES[mediaType]}`), TYPES[mediaType]);
      if (mediaType === "application/json") JSON.parse(content);
      const bytes = new TextEncoder().encode(content);
      if (bytes.byteLength > options.maxBytes)
        throw new Error(
          `the file would be ${formatBytes(bytes.byteLength)}, over the ${formatBytes(options.maxBytes)} limit`,
        );
      const written = await writeBytes(blobs, spaceOf(key), bytes);
      if (written.kind !== "stored") throw new Error("the file could not be stored");
      const file: OutboundFile = { name: fileName, mediaType, size: written.size, blob: written.ref };
      return toolResultWithFiles(
        config,
        CREATE_FILE,
        `Created ${fileName} (${mediaType}, ${formatBytes(written.size)}). It will be attached after your answer; do not paste its contents again.`,
        [file],
      );
    },
    {
      name: CREATE_FILE,
      description:
        "Create a file (text, CSV, Markdown or JSON) that is sent to the user as an attachment after your answer. Use it for tables, exports and reports the user asked to download.",
      schema: z.object({
        name: z.string().min(1).max(200).describe("File name with extension, e.g. 'sales-march.csv'."),
        content: z.string().describe("The whole file content."),
        media_type: z.enum(Object.keys(TYPES) as [FileType, ...FileType[]]).optional(),
      }),
    },
  );
}

function withExtension(name: string, extension: string): string {
  return /\.[A-Za-z0-9]{1,10}$/.test(name) ? name : `${name}.${extension}`;
}
