import { tool } from "@langchain/core/tools";
import { z } from "zod";

export const httpToolConfigSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "lowercase letters, digits and _"),
  description: z.string().min(1, "say what the tool does: agents and find_tools choose by it"),
  url: z.url(),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
  headers: z.record(z.string(), z.string()).default({}),
  requiresApproval: z.boolean().default(false),
  timeoutSeconds: z.number().positive().default(30),
});

export type HttpToolConfig = z.output<typeof httpToolConfigSchema>;

const MAX_RESULT_CHARS = 4_000;

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
 * A tool an operator declares in switchboard.yaml: the model's arguments go to the URL as JSON
 * (as the query string for GET); the response text comes back to the model.
 */
export function createHttpTool(config: HttpToolConfig) {
  return tool(
    async (args: Record<string, unknown>, runConfig) => {
      const url = new URL(config.url);
      const init: RequestInit = {
        method: config.method,
        headers: { "content-type": "application/json", ...config.headers },
      };
      if (config.method === "GET")
        for (const [k, v] of Object.entries(args)) url.searchParams.set(k, String(v));
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
        text = await response.text();
      } catch (error) {
        if (timeout.signal.aborted && !runConfig?.signal?.aborted)
          throw new HttpToolTimeoutError(config.name, config.timeoutSeconds);
        throw error;
      } finally {
        clearTimeout(timer);
      }
      if (!response.ok)
        throw new Error(`${config.name} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
      return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… (truncated)` : text;
    },
    {
      name: config.name,
      description: config.description,
      schema: z.record(z.string(), z.unknown()),
    },
  );
}
