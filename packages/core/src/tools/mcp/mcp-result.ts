import type { ToolFileSource } from "../../attachments/tool-files.ts";

/** What an MCP tool's result gives: text for the model, and the files in it (images, audio, resources). */
export interface McpResultParts {
  /** The text blocks, in order; a line naming each file (or link) where it sat. */
  readonly text: string;
  readonly files: readonly McpFilePart[];
}

export interface McpFilePart extends ToolFileSource {
  /** Where the file sat in `text`: this placeholder is replaced by what became of it. */
  readonly placeholder: string;
}

/**
 * Splits a result as `@langchain/mcp-adapters` hands it over (every block as content): text blocks,
 * `image_url` data URLs, base64 `audio`, embedded resources as `file` blocks (base64 or text), and
 * resource links (`file` with a URL, which is named and never fetched). A result that is one plain
 * string or a structured object is text.
 */
export function mcpResultParts(output: unknown, toolName: string): McpResultParts {
  if (typeof output === "string") return { text: output, files: [] };
  if (!Array.isArray(output)) return { text: JSON.stringify(output), files: [] };
  const lines: string[] = [];
  const files: McpFilePart[] = [];
  for (const block of output as unknown[]) {
    if (typeof block === "string") {
      lines.push(block);
      continue;
    }
    const record = (block && typeof block === "object" ? block : {}) as Record<string, unknown>;
    const file = fileOf(record, toolName, files.length + 1);
    if (file) {
      const placeholder = `\u0000file-${files.length}\u0000`;
      files.push({ ...file, placeholder });
      lines.push(placeholder);
    } else if (typeof record.text === "string") lines.push(record.text);
    else if (record.type === "file" && typeof record.url === "string")
      lines.push(`[linked resource ${record.url.slice(0, 300)} (not fetched)]`);
    else lines.push(`[${typeof record.type === "string" ? record.type : "content"} omitted]`);
  }
  return { text: lines.join("\n"), files };
}

function fileOf(
  block: Record<string, unknown>,
  toolName: string,
  number: number,
): Omit<McpFilePart, "placeholder"> | undefined {
  const mimeType = typeof block.mime_type === "string" ? block.mime_type : undefined;
  const uri = (block.metadata as { uri?: unknown } | undefined)?.uri;
  const named = typeof uri === "string" ? nameFromUri(uri) : undefined;
  if (block.type === "image_url") {
    const url = (block.image_url as { url?: unknown } | undefined)?.url;
    const data = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
    if (!data) return undefined;
    return base64File(`${toolName}-image-${number}`, data[1], data[2] ?? "");
  }
  if ((block.type === "audio" || block.type === "file") && block.source_type === "base64") {
    if (typeof block.data !== "string") return undefined;
    return base64File(named ?? `${toolName}-${block.type}-${number}`, mimeType, block.data);
  }
  if (block.type === "file" && block.source_type === "text" && typeof block.text === "string")
    return {
      name: named ?? `${toolName}-resource-${number}.txt`,
      ...(mimeType ? { declaredType: mimeType } : {}),
      body: once(new TextEncoder().encode(block.text)),
    };
  return undefined;
}

function base64File(name: string, declaredType: string | undefined, data: string) {
  return {
    name,
    ...(declaredType ? { declaredType } : {}),
    body: once(Buffer.from(data, "base64")),
  };
}

/** The last part of a resource's path (`file:///reports/q3.pdf` → `q3.pdf`); undefined when it has none. */
function nameFromUri(uri: string): string | undefined {
  try {
    const last = decodeURIComponent(new URL(uri).pathname).split("/").filter(Boolean).at(-1);
    return last || undefined;
  } catch {
    return undefined;
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
