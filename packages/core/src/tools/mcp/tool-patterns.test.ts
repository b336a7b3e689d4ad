import { describe, expect, it } from "vitest";
import { type McpServerConfig, mcpConfigSchema, mcpServerConfigSchema } from "./mcp-config.ts";
import {
  catalogToolName,
  isToolOffered,
  matchesPattern,
  serverOfToolName,
  toolRequiresApproval,
  toolStatusText,
} from "./tool-patterns.ts";

const server = (extra: object): McpServerConfig =>
  mcpServerConfigSchema.parse({ name: "files", transport: "stdio", command: "npx", ...extra });

describe("tool patterns", () => {
  it.each([
    ["write_file", "write_*", true],
    ["write_file", "*", true],
    ["write_file", "write_file", true],
    ["rewrite_file", "write_*", false],
    ["write.file", "write_file", false],
    ["a+b", "a+*", true],
    ["ab", "a.b", false],
  ])("%s matches %s: %s", (name, pattern, expected) => {
    expect(matchesPattern(name, pattern)).toBe(expected);
  });

  it.each([
    [{}, "read_file", true],
    [{ allowTools: ["read_*"] }, "read_file", true],
    [{ allowTools: ["read_*"] }, "write_file", false],
    [{ denyTools: ["write_*"] }, "write_file", false],
    [{ allowTools: ["*"], denyTools: ["move_file"] }, "move_file", false],
  ])("offered with %j: %s → %s", (extra, name, expected) => {
    expect(isToolOffered(server(extra), name)).toBe(expected);
  });

  it.each([
    [false, "write_file", false],
    [true, "read_file", true],
    [["write_*", "move_file"], "write_file", true],
    [["write_*", "move_file"], "read_file", false],
  ])("requiresApproval %j: %s → %s", (rule, name, expected) => {
    expect(toolRequiresApproval(server({ requiresApproval: rule }), name)).toBe(expected);
  });

  it("finds a tool's status text by exact name before patterns", () => {
    const config = server({ status: { "*": "Working on files…", read_file: "Reading a file…" } });
    expect(toolStatusText(config, "read_file")).toBe("Reading a file…");
    expect(toolStatusText(config, "write_file")).toBe("Working on files…");
    expect(toolStatusText(server({}), "read_file")).toBeUndefined();
  });

  it.each([
    ["files", "read_file", "files__read_file"],
    ["files", "read.file/v2", "files__read_file_v2"],
    ["files", "x".repeat(80), `files__${"x".repeat(57)}`],
  ])("catalog name of %s/%s is %s", (serverName, tool, expected) => {
    expect(catalogToolName(serverName, tool)).toBe(expected);
    expect(serverOfToolName(expected)).toBe(serverName);
  });
  it("names without the separator belong to no server", () => {
    expect(serverOfToolName("lookup_order")).toBeUndefined();
  });
});

describe("mcp config", () => {
  it("takes stdio and http servers with defaults", () => {
    const config = mcpConfigSchema.parse({
      servers: [
        { name: "files", transport: "stdio", command: "npx", args: ["-y", "some-server", "./docs"] },
        {
          name: "tracker",
          transport: "http",
          url: "https://mcp.example.com/mcp",
          headers: { authorization: "x" },
        },
      ],
    });
    expect(config.servers[0]).toMatchObject({
      env: {},
      denyTools: [],
      requiresApproval: false,
      connectTimeoutSeconds: 20,
      callTimeoutSeconds: 60,
      reconnect: { initialDelaySeconds: 1, maxDelaySeconds: 60 },
    });
    expect(config.servers[1]).toMatchObject({ transport: "http", headers: { authorization: "x" } });
  });

  it.each([
    ["a name with __", { servers: [{ name: "my__files", transport: "stdio", command: "x" }] }],
    ["no transport", { servers: [{ name: "files", command: "x" }] }],
    ["stdio without command", { servers: [{ name: "files", transport: "stdio" }] }],
    ["http with a file URL", { servers: [{ name: "files", transport: "http", url: "file:///etc/passwd" }] }],
    ["an unknown key", { servers: [{ name: "files", transport: "stdio", command: "x", tools: [] }] }],
    [
      "two servers with one name",
      {
        servers: [
          { name: "files", transport: "stdio", command: "x" },
          { name: "files", transport: "stdio", command: "y" },
        ],
      },
    ],
  ])("refuses %s", (_name, input) => {
    expect(mcpConfigSchema.safeParse(input).success).toBe(false);
  });
});
