import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "@switchboard/core";
import { mcpServerConfigSchema } from "@switchboard/core/config";

const STDIO_ENTRY = fileURLToPath(new URL("./stdio-order-server.ts", import.meta.url));

/** Quick reconnects, so tests see a server come back within a second. */
const FAST_RECONNECT = { initialDelaySeconds: 0.05, maxDelaySeconds: 0.2 };

/**
 * The stdio order-desk server as switchboard.yaml would configure it, plus a switch that keeps it
 * from starting (`refuse`/`allow`): with it on, a killed server (`kill`) stays down across reconnects.
 */
export async function stdioOrderServer(
  extra: Record<string, unknown> = {},
  options: { files?: boolean } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-mcp-"));
  const flag = join(dir, "refuse");
  const pidFile = join(dir, "pid");
  const config: McpServerConfig = mcpServerConfigSchema.parse({
    name: "orders",
    transport: "stdio",
    command: process.execPath,
    args: ["--disable-warning=ExperimentalWarning", STDIO_ENTRY],
    env: {
      ORDER_SERVER_REFUSE: flag,
      ORDER_SERVER_PID_FILE: pidFile,
      ...(options.files ? { ORDER_SERVER_FILES: "1" } : {}),
    },
    reconnect: FAST_RECONNECT,
    ...extra,
  });
  return {
    config,
    refuse: () => writeFile(flag, "down"),
    allow: () => rm(flag, { force: true }),
    /** Kills the running server process (SIGKILL), as a crash would. */
    kill: async () => process.kill(Number(await readFile(pidFile, "utf8")), "SIGKILL"),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function httpOrderServerConfig(url: string, extra: Record<string, unknown> = {}): McpServerConfig {
  return mcpServerConfigSchema.parse({
    name: "orders",
    transport: "http",
    url,
    reconnect: FAST_RECONNECT,
    ...extra,
  });
}
