import type { McpServerState } from "./mcp-server-link.ts";

/** One line per MCP server, for `/status` (admins) and `doctor`. */
export function describeMcpServer(state: McpServerState, now: number): string {
  const head = `${state.name} (${state.transport}): ${state.status}`;
  switch (state.status) {
    case "connected":
      return `${head}, ${state.tools} tool${state.tools === 1 ? "" : "s"}`;
    case "down": {
      const retry =
        state.nextAttemptAt !== undefined
          ? `; retrying in ${Math.max(0, Math.ceil((state.nextAttemptAt - now) / 1000))} s`
          : "";
      const attempts = state.failedAttempts > 0 ? ` after ${state.failedAttempts} failed attempt(s)` : "";
      return `${head}${attempts} — ${state.lastError ?? "no reason given"}${retry}`;
    }
    default:
      return head;
  }
}

export function mcpStatusLines(states: readonly McpServerState[], now: number): string[] {
  if (states.length === 0) return [];
  return ["Tool servers (MCP):", ...states.map((state) => `- ${describeMcpServer(state, now)}`)];
}
