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
      const timeout = AbortSignal.timeout(config.timeoutSeconds * 1000);
      init.signal = runConfig?.signal ? AbortSignal.any([runConfig.signal, timeout]) : timeout;
      const response = await fetch(url, init);
      const text = await response.text();
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
