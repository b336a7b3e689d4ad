import { z } from "zod";

// No "__" and no trailing "_": catalog names are `<server>__<tool>`, so a server's name must not
// contain the separator (and HTTP tool names, which never contain it, cannot collide with them).
const serverName = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, "lowercase letters, digits and single _ between them")
  .max(24);

/** Tool names as the server calls them, or patterns with `*` (`write_*`, `*`). */
const toolPatterns = z.array(z.string().min(1));

const commonFields = {
  name: serverName,
  /** Only these of the server's tools are offered (all when absent). */
  allowTools: toolPatterns.optional(),
  /** These never are, even when allowed. */
  denyTools: toolPatterns.default([]),
  /** `true` for every tool of the server, or the tools (patterns) that wait for `/approve`. */
  requiresApproval: z.union([z.boolean(), toolPatterns]).default(false),
  /** Tool name (or pattern) → a short progress text, logged when the tool starts. */
  status: z.record(z.string(), z.string().min(1).max(200)).default({}),
  connectTimeoutSeconds: z.number().positive().max(600).default(20),
  callTimeoutSeconds: z.number().positive().max(3_600).default(60),
  /** A tool's result is cut here before the model sees it. */
  maxResultChars: z.number().int().min(100).max(200_000).default(8_000),
  /** After a failure: wait the initial delay, doubling each failed attempt up to the maximum. */
  reconnect: z
    .strictObject({
      initialDelaySeconds: z.number().positive().default(1),
      maxDelaySeconds: z.number().positive().default(60),
    })
    .prefault({}),
};

const stdioServerSchema = z.strictObject({
  transport: z.literal("stdio"),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal inherited environment (PATH, HOME, …): secrets are not passed on unasked. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Names of Switchboard's own environment variables to pass on (a proxy, a CA bundle, a token);
   * the CLI copies their values into `env` at start-up. `env` wins where both name a variable.
   */
  passEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")).default([]),
  cwd: z.string().optional(),
  ...commonFields,
});

const httpServerSchema = z.strictObject({
  transport: z.literal("http"),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  ...commonFields,
});

export const mcpServerConfigSchema = z.discriminatedUnion(
  "transport",
  [stdioServerSchema, httpServerSchema],
  {
    error: () => "expected transport: stdio (with command) or transport: http (with url)",
  },
);

export const mcpConfigSchema = z
  .strictObject({ servers: z.array(mcpServerConfigSchema).default([]) })
  .superRefine((config, context) => {
    const seen = new Set<string>();
    for (const [index, server] of config.servers.entries()) {
      if (seen.has(server.name))
        context.addIssue({
          code: "custom",
          path: ["servers", index, "name"],
          message: `duplicate MCP server name ${server.name}`,
        });
      seen.add(server.name);
    }
  });

export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;
export type McpConfig = z.output<typeof mcpConfigSchema>;
