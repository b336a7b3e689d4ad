import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
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
 * an idempotency key in headers; the response text comes back to the model, capped.
 */
export function createHttpTool(config: HttpToolConfig): StructuredToolInterface {
  const created = tool(
    async (args: Record<string, unknown>, runConfig) => callEndpoint(config, args, runConfig),
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
): Promise<string> {
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
