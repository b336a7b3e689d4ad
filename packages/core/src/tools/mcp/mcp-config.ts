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
  name: serverName.describe("The server's name: the prefix of its tools' names (`<name>__<tool>`)."),
  allowTools: toolPatterns
    .optional()
    .describe("Only these of the server's tools are offered (all when absent)."),
  denyTools: toolPatterns.default([]).describe("These never are, even when allowed."),
  requiresApproval: z
    .union([z.boolean(), toolPatterns])
    .default(false)
    .describe("`true` for every tool of the server, or the tools (patterns) that wait for `/approve`."),
  status: z
    .record(z.string(), z.string().min(1).max(200))
    .default({})
    .describe("Tool name (or pattern) → a short progress text, logged when the tool starts."),
  connectTimeoutSeconds: z
    .number()
    .positive()
    .max(600)
    .default(20)
    .describe("Connecting and listing the tools."),
  callTimeoutSeconds: z.number().positive().max(3_600).default(60).describe("One tool call."),
  maxResultChars: z
    .number()
    .int()
    .min(100)
    .max(200_000)
    .default(8_000)
    .describe("A tool's result is cut here before the model sees it."),
  reconnect: z
    .strictObject({
      initialDelaySeconds: z.number().positive().default(1).describe("The first wait after a failure."),
      maxDelaySeconds: z.number().positive().default(60).describe("The longest wait between attempts."),
    })
    .prefault({})
    .describe("After a failure: wait the initial delay, doubling each failed attempt up to the maximum."),
};

const stdioServerSchema = z.strictObject({
  transport: z.literal("stdio").describe("`stdio`: a child process; `http`: streamable HTTP."),
  command: z.string().min(1).describe("The program to start (e.g. `npx`)."),
  args: z.array(z.string()).default([]).describe("Its arguments."),
  env: z
    .record(z.string(), z.string())
    .default({})
    .describe("Added to a minimal inherited environment (PATH, HOME, …): secrets are not passed on unasked."),
  passEnv: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"))
    .default([])
    .describe(
      "Names of Switchboard's own environment variables to pass on (a proxy, a CA bundle, a token); the CLI copies their values into `env` at start-up. `env` wins where both name a variable.",
    ),
  cwd: z.string().optional().describe("Its working directory."),
  ...commonFields,
});

const httpServerSchema = z.strictObject({
  transport: z.literal("http").describe("`stdio`: a child process; `http`: streamable HTTP."),
  url: z.url({ protocol: /^https?$/ }).describe("The server's MCP endpoint."),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe("Sent with every request (e.g. `Authorization`)."),
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
  .strictObject({
    servers: z
      .array(mcpServerConfigSchema)
      .default([])
      .describe("Each server: a child process (`transport: stdio`) or an HTTP endpoint (`transport: http`)."),
  })
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
