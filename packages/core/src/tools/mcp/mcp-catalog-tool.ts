import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { StructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { Logger } from "../../runtime/logger.ts";
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

  constructor(name: string, link: McpServerLink, toolName: string, logger: Logger) {
    super();
    this.name = name;
    this.#link = link;
    this.#toolName = toolName;
    this.#logger = logger;
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
  ): Promise<string> {
    const status = toolStatusText(this.#link.config, this.#toolName);
    if (status)
      this.#logger.info("tool status", {
        tool: this.name,
        status,
        conversation: config?.configurable?.thread_id,
      });
    const output = await this.#link.call(this.#toolName, args, config);
    return capped(contentText(output), this.#link.config.maxResultChars);
  }

  #listed() {
    return this.#link.tools().find((listed) => listed.name === this.#toolName);
  }
}

/** MCP results are text, or content blocks (text, images, resources): the model gets their text. */
function contentText(output: unknown): string {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) return JSON.stringify(output);
  return output
    .map((block: unknown) => {
      if (typeof block === "string") return block;
      if (block && typeof block === "object" && "text" in block && typeof block.text === "string")
        return block.text;
      const type = block && typeof block === "object" && "type" in block ? String(block.type) : "content";
      return `[${type} omitted]`;
    })
    .join("\n");
}

function capped(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (truncated)` : text;
}
