import type { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { formatBytes } from "../attachments/safe-name.ts";
import {
  conversationOfTool,
  fileResultLine,
  keepToolFile,
  type ToolFiles,
  toolResultWithFiles,
} from "../attachments/tool-files.ts";
import { httpToolParametersSchema, type ParametersSchema } from "./http-tool-parameters.ts";
import { readCappedText } from "./read-capped.ts";
import { requestContextHeaders, toolRequestContext } from "./request-context.ts";

/** Names the team itself uses; a configured tool may not take them. */
const RESERVED_TOOL_NAMES = new Set(["find_tools", "search_memory"]);

export const httpToolConfigSchema = z.strictObject({
  name: z
    .string()
    // No "__": that separates an MCP server's name from its tools' names, so names never collide.
    .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, "lowercase letters, digits and single _ between them")
    .max(64)
    .refine((name) => !RESERVED_TOOL_NAMES.has(name) && !name.startsWith("transfer_to_"), {
      error: "find_tools, search_memory and transfer_to_* are built-in names",
    })
    .describe("The tool's name as agents list it: lowercase letters, digits and single `_`."),
  description: z
    .string()
    .min(1, "say what the tool does: agents and find_tools choose by it")
    .describe("What the tool does: the model and `find_tools` choose by it."),
  url: z.url().describe("The endpoint called."),
  method: z
    .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
    .default("POST")
    .describe("Arguments go as the JSON body, or as the query string for `GET`."),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe("Sent with every call (e.g. `Authorization`)."),
  parameters: httpToolParametersSchema
    .optional()
    .describe("The arguments the model must send; checked before the call. Absent: any JSON object."),
  requiresApproval: z
    .boolean()
    .default(false)
    .describe("A call waits for `/approve` (or the Approve button) from the person who asked or an admin."),
  status: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Shown while it runs, after the agent\'s name: "is checking your invoice…".'),
  timeoutSeconds: z.number().positive().default(30).describe("One call, response body included."),
  maxResponseChars: z
    .number()
    .int()
    .min(100)
    .max(200_000)
    .default(4_000)
    .describe(
      "The response is cut here before the model sees it (and read no further than a few times this).",
    ),
});

export type HttpToolConfig = z.output<typeof httpToolConfigSchema>;

const ANY_OBJECT: ParametersSchema = { type: "object", properties: {}, additionalProperties: true };

/** The endpoint took longer than the tool's `timeoutSeconds` (the response body included). */
export class HttpToolTimeoutError extends Error {
  readonly tool: string;
  readonly timeoutSeconds: number;
  constructor(tool: string, timeoutSeconds: number) {
    super(`${tool} did not answer within ${timeoutSeconds} s (its timeoutSeconds in switchboard.yaml)`);
    this.name = "HttpToolTimeoutError";
    this.tool = tool;
    this.timeoutSeconds = timeoutSeconds;
  }
}

/**
 * A tool an operator declares in switchboard.yaml. The model's arguments are checked against the
 * tool's `parameters` (a bad call comes back to the model as an error it can correct), then go to
 * the URL as JSON (as the query string for GET) with the request id, run id, conversation key and
 * an idempotency key in headers; the response text comes back to the model, capped. A response that
 * is a file (see isFileResponse) is kept in `files` and sent to the user after the answer instead.
 */
export function createHttpTool(
  config: HttpToolConfig,
  options: { readonly files?: ToolFiles } = {},
): StructuredToolInterface {
  const created = tool(
    async (args: Record<string, unknown>, runConfig) => callEndpoint(config, args, runConfig, options.files),
    {
      name: config.name,
      description: config.description,
      schema: config.parameters ?? ANY_OBJECT,
      // It sends `Idempotency-Key: <run>:<call>`: a call repeated after a crash can be recognised.
      metadata: { acceptsIdempotencyKey: true },
    },
  );
  // The model reads the failed keyword and place in the schema, and corrects its call.
  created.verboseParsingErrors = true;
  return created;
}

async function callEndpoint(
  config: HttpToolConfig,
  args: Record<string, unknown>,
  runConfig: RunnableConfig | undefined,
  files: ToolFiles | undefined,
): Promise<string | ToolMessage> {
  const url = new URL(config.url);
  const init: RequestInit = {
    method: config.method,
    headers: {
      "content-type": "application/json",
      ...requestContextHeaders(toolRequestContext(runConfig)),
      ...config.headers,
    },
  };
  if (config.method === "GET")
    for (const [k, v] of Object.entries(args))
      url.searchParams.set(k, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
  else init.body = JSON.stringify(args);
  // Not AbortSignal.timeout: its timer, and the signals listening to it, would outlive the call
  // by the whole timeout (held for every call made meanwhile); this one is cleared below.
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException(`${config.name} did not answer in time`, "TimeoutError")),
    config.timeoutSeconds * 1000,
  );
  timer.unref();
  init.signal = runConfig?.signal ? AbortSignal.any([runConfig.signal, timeout.signal]) : timeout.signal;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    if (response.ok && isFileResponse(response.headers))
      return await fileResult(config, response, runConfig, files);
    text = await readCappedText(response, config.maxResponseChars);
  } catch (error) {
    if (timeout.signal.aborted && !runConfig?.signal?.aborted)
      throw new HttpToolTimeoutError(config.name, config.timeoutSeconds);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw new Error(`${config.name} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Answers the model reads as text; any other type with a body is a file (and so is an `attachment`). */
const TEXT_TYPES =
  /^(text\/(plain|html|xml|markdown)|application\/(json|xml|x-www-form-urlencoded|problem\+json|[\w.-]+\+json))$/;

/** Whether a successful answer is a file to send rather than text for the model. */
export function isFileResponse(headers: Headers): boolean {
  if (headers.get("content-length") === "0") return false;
  if (/^\s*attachment\b/i.test(headers.get("content-disposition") ?? "")) return true;
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type !== "" && !TEXT_TYPES.test(type);
}

/** The file an endpoint answered with, kept for the delivery; the model reads one line about it. */
async function fileResult(
  config: HttpToolConfig,
  response: Response,
  runConfig: RunnableConfig | undefined,
  files: ToolFiles | undefined,
): Promise<string | ToolMessage> {
  const declaredType = response.headers.get("content-type") ?? undefined;
  if (!files || !response.body) {
    await response.body?.cancel();
    return `${config.name} returned a file (${declaredType ?? "no type"}), but files are off here (attachments.enabled is false), so it was not kept.`;
  }
  const kept = await keepToolFile(files, conversationOfTool(runConfig), {
    name: fileNameOf(response.headers.get("content-disposition")) ?? config.name,
    ...(declaredType ? { declaredType } : {}),
    // Leaving the body's iteration at the cap cancels it: the rest is never read.
    body: response.body,
  });
  if (kept.kind === "too-large")
    return `${config.name} returned a file over the ${formatBytes(files.maxBytes)} limit; it was not kept or sent.`;
  return toolResultWithFiles(runConfig, config.name, fileResultLine(kept.file), [kept.file]);
}

/** `filename*=UTF-8''…` or `filename="…"` of a Content-Disposition; cleaned later (safeFileName). */
export function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      return undefined;
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;\s]+)/i.exec(disposition);
  return plain?.[1] ?? plain?.[2] ?? undefined;
}
