/**
 * MCP servers through the real `switchboard` command: `doctor` connects to each configured server
 * and lists its tools, and `/status` in the terminal chat shows their state to admins only.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stdioOrderServer } from "../../../test/support/mcp/order-servers.ts";
import { testContext } from "./cli-test-context.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
let server: Awaited<ReturnType<typeof stdioOrderServer>>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-mcp-cli-"));
  server = await stdioOrderServer();
});
afterEach(async () => {
  await server.cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** switchboard.yaml with the test order server, written as an operator would (JSON is YAML). */
async function writeConfig(extra: { admins?: string[]; brokenServer?: boolean } = {}) {
  const { config } = server;
  if (config.transport !== "stdio") throw new Error("the test server is a stdio server");
  const servers: object[] = [
    {
      name: "orders",
      transport: "stdio",
      command: config.command,
      args: config.args,
      denyTools: ["internal_*"],
    },
  ];
  if (extra.brokenServer)
    servers.push({
      name: "broken",
      transport: "stdio",
      command: process.execPath,
      args: ["-e", "process.stderr.write('no token configured\\n'); process.exit(3)"],
    });
  const yaml = {
    store: "sqlite://./data/switchboard.db",
    requests: { admins: extra.admins ?? [] },
    mcp: { servers },
    team: { supervisor: { prompt: "You help.", tools: ["orders__lookup_order", "find_tools"] } },
  };
  await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(yaml, null, 2));
}

describe("MCP servers in the CLI", () => {
  it("doctor lists each server's tools, and names a server that does not start with its reason", async () => {
    await writeConfig({ brokenServer: true });
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(1);
    const lines = stdout.text.split("\n");
    expect(lines).toContainEqual(
      "ok       mcp: orders (stdio): connected, 5 tools (orders__lookup_order, orders__refund_payment, orders__call_context, orders__order_history, orders__warehouse_check)",
    );
    const broken = lines.find((line) => line.includes("mcp: broken"));
    expect(broken).toMatch(/^problem +mcp: broken \(stdio\): .*no token configured/);
    expect(broken).toContain("fix: run `");
  });

  it("/status shows the tool servers to an admin, and not to anyone else", async () => {
    const me = userInfo().username || "you";
    await writeConfig({ admins: [me] });
    const asAdmin = testContext({ cwd: dir, input: "/status\n" });
    expect(await runCli(["start"], asAdmin.context)).toBe(0);
    expect(asAdmin.stdout.text).toContain("Tool servers (MCP):\n- orders (stdio): connected, 5 tools");

    await writeConfig({ admins: ["someone-else"] });
    const asUser = testContext({ cwd: dir, input: "/status\n" });
    expect(await runCli(["start"], asUser.context)).toBe(0);
    expect(asUser.stdout.text).toContain("Answering here: **supervisor**");
    expect(asUser.stdout.text).not.toContain("Tool servers");
  });
});
