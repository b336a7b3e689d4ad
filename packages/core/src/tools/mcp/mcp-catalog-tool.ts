import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { ToolMessage } from "@langchain/core/messages";
import { StructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import { formatBytes } from "../../attachments/safe-name.ts";
import type { OutboundFile } from "../../attachments/stored-attachment.ts";
import {
  conversationOfTool,
  fileResultLine,
  keepToolFile,
  type ToolFiles,
  toolResultWithFiles,
} from "../../attachments/tool-files.ts";
import type { Logger } from "../../runtime/logger.ts";
import { mcpResultParts } from "./mcp-result.ts";
import type { McpServerLink } from "./mcp-server-link.ts";
import { toolStatusText } from "./tool-patterns.ts";

type JsonObjectSchema = Record<string, unknown>;

/** While the server has never listed its tools: any object, checked by the server itself. */
const UNKNOWN_ARGUMENTS: JsonObjectSchema = { type: "object", properties: {}, additionalProperties: true };

/**
 * One MCP tool in the catalog, under its catalog name (`<server>__<tool>`). It stays the same object
 * across reconnects — agents capture their tools once — and reads its description and arguments
 * from the server's latest listing each time a model is given it.
 */
export class McpCatalogTool extends StructuredTool<JsonObjectSchema> {
  readonly name: string;
  readonly #link: McpServerLink;
  readonly #toolName: string;
  readonly #logger: Logger;
  readonly #files: ToolFiles | undefined;

  constructor(name: string, link: McpServerLink, toolName: string, logger: Logger, files?: ToolFiles) {
    super();
    this.name = name;
    this.#link = link;
    this.#toolName = toolName;
    this.#logger = logger;
    this.#files = files;
    // The model reads which argument failed the server's schema, and corrects its call.
    this.verboseParsingErrors = true;
    // Calls carry `switchboard/idempotencyKey` in `_meta` (and as a header over HTTP): a call
    // repeated after a crash is the server's to recognise.
    this.metadata = { acceptsIdempotencyKey: true };
  }

  get description(): string {
    const listed = this.#listed();
    if (listed)
      return listed.description || `${this.#toolName} (from the ${this.#link.config.name} tool server)`;
    return `${this.#toolName} on the ${this.#link.config.name} tool server (not connected yet: calls fail until it is)`;
  }

  get schema(): JsonObjectSchema {
    const listed = this.#listed()?.schema;
    return listed && typeof listed === "object" && !("_def" in listed)
      ? (listed as JsonObjectSchema)
      : UNKNOWN_ARGUMENTS;
  }

  protected override async _call(
    args: Record<string, unknown>,
    _runManager?: CallbackManagerForToolRun,
    config?: ToolRunnableConfig,
  ): Promise<string | ToolMessage> {
    const status = toolStatusText(this.#link.config, this.#toolName);
    if (status)
      this.#logger.info("tool status", {
        tool: this.name,
        status,
        conversation: config?.configurable?.thread_id,
      });
    const output = await this.#link.call(this.#toolName, args, config);
    const parts = mcpResultParts(output, this.#toolName);
    const maxChars = this.#link.config.maxResultChars;
    const files = this.#files;
    if (parts.files.length === 0 || !files) {
      const omitted = (part: (typeof parts.files)[number]) => `[${part.name}: files are off here, omitted]`;
      return capped(placed(parts.text, parts.files, omitted), maxChars);
    }
    // Images and resources become files the answer carries; the model reads a line for each.
    const key = conversationOfTool(config);
    const kept: OutboundFile[] = [];
    const lines = new Map<string, string>();
    for (const part of parts.files) {
      const result = await keepToolFile(files, key, part);
      if (result.kind === "kept") {
        kept.push(result.file);
        lines.set(part.placeholder, fileResultLine(result.file));
      } else
        lines.set(
          part.placeholder,
          `[${result.name} is over the ${formatBytes(files.maxBytes)} limit: not kept]`,
        );
    }
    const text = capped(
      placed(parts.text, parts.files, (part) => lines.get(part.placeholder) ?? ""),
      maxChars,
    );
    return toolResultWithFiles(config, this.name, text, kept);
  }

  #listed() {
    return this.#link.tools().find((listed) => listed.name === this.#toolName);
  }
}

/** The result's text with each file's placeholder replaced by what became of it. */
function placed<T extends { placeholder: string }>(
  text: string,
  files: readonly T[],
  line: (file: T) => string,
) {
  return files.reduce((result, file) => result.replace(file.placeholder, line(file)), text);
}

function capped(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (truncated)` : text;
}
