import type { McpServerConfig } from "./mcp-config.ts";

/** `write_*` matches `write_file`; `*` matches everything; anything else matches itself exactly. */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!pattern.includes("*")) return name === pattern;
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`).test(name);
}

const matchesAny = (name: string, patterns: readonly string[]) =>
  patterns.some((pattern) => matchesPattern(name, pattern));

/** Whether the server's tool `name` is offered at all (allow list, then deny list). */
export function isToolOffered(config: McpServerConfig, name: string): boolean {
  if (config.allowTools && !matchesAny(name, config.allowTools)) return false;
  return !matchesAny(name, config.denyTools);
}

export function toolRequiresApproval(config: McpServerConfig, name: string): boolean {
  const rule = config.requiresApproval;
  return typeof rule === "boolean" ? rule : matchesAny(name, rule);
}

/** The progress text of the first matching `status` entry (exact names before patterns). */
export function toolStatusText(config: McpServerConfig, name: string): string | undefined {
  if (config.status[name]) return config.status[name];
  return Object.entries(config.status).find(([pattern]) => matchesPattern(name, pattern))?.[1];
}

const SEPARATOR = "__";
const MAX_TOOL_NAME = 64;

/**
 * `<server>__<tool>`, in the characters every model provider accepts for tool names. Server names
 * never contain `__` and HTTP tool names never do, so no two tools of the catalog share a name.
 */
export function catalogToolName(server: string, tool: string): string {
  return `${server}${SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, MAX_TOOL_NAME);
}

/** The server a catalog name belongs to, when it has the `<server>__` form. */
export function serverOfToolName(name: string): string | undefined {
  const at = name.indexOf(SEPARATOR);
  return at > 0 ? name.slice(0, at) : undefined;
}
