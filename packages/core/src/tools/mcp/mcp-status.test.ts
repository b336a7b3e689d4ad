import { describe, expect, it } from "vitest";
import { mcpStatusLines } from "./mcp-status.ts";

describe("mcpStatusLines", () => {
  it("says each server's state, its tools, and when a down server is retried", () => {
    const now = 1_000_000;
    expect(
      mcpStatusLines(
        [
          {
            name: "files",
            transport: "stdio",
            status: "connected",
            tools: 14,
            since: now,
            failedAttempts: 0,
          },
          {
            name: "tracker",
            transport: "http",
            status: "down",
            tools: 3,
            since: now,
            failedAttempts: 2,
            lastError: "fetch failed",
            nextAttemptAt: now + 7_500,
          },
        ],
        now,
      ),
    ).toEqual([
      "Tool servers (MCP):",
      "- files (stdio): connected, 14 tools",
      "- tracker (http): down after 2 failed attempt(s) — fetch failed; retrying in 8 s",
    ]);
    expect(mcpStatusLines([], now)).toEqual([]);
  });
});
