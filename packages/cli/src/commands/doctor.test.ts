import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelStub } from "../../../../test/support/model/model-stub.ts";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";
import { checkNode } from "./doctor-checks.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-doctor-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An address nothing listens on: a port the system handed out and took back. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function linesOf(text: string): string[] {
  return text.trimEnd().split("\n");
}

describe("switchboard doctor", () => {
  it("passes on the built-in defaults", async () => {
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(0);
    const lines = linesOf(stdout.text);
    expect(lines).toContainEqual(expect.stringMatching(/^ok +node: 22\./));
    expect(lines).toContainEqual(expect.stringMatching(/^ok +config: built-in defaults/));
    expect(lines).toContainEqual(
      "ok       model: offline (built-in, no LLM) — set model: in switchboard.yaml to use a real one",
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ok +store: sqlite:\/\/.*switchboard\.db \(write, read and delete work\)$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ok +checkpoints: SQLite checkpoints in .*switchboard\.db, .* \(read and delete work\)$/,
      ),
    );
    expect(lines).toContainEqual("ok       platforms: none enabled: start opens a chat in the terminal");
    expect(lines.at(-1)).toBe("all checks passed");
    expect(lines.filter((line) => line.startsWith("problem"))).toEqual([]);
  });

  it("reports an unreachable Redis store as a problem and exits 1", async () => {
    const { context, stdout } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_STORE_URL: "redis://127.0.0.1:1" },
    });
    expect(await runCli(["doctor"], context)).toBe(1);
    const store = linesOf(stdout.text).find((line) => line.includes(" store: "));
    expect(store).toMatch(
      /^problem +store: redis:\/\/127\.0\.0\.1:1: could not connect to Redis \(127\.0\.0\.1:1\)/,
    );
    expect(store).toContain("fix: start the backend or correct store: (or SWITCHBOARD_STORE_URL)");
    expect(linesOf(stdout.text).at(-1)).toMatch(/^\d+ problems? found$/);
  });

  it("reports a missing API key for the configured provider", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "model: openai:gpt-4o-mini\n");
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(1);
    expect(stdout.text).toContain(
      "problem  model: openai:gpt-4o-mini: openai needs an API key: set OPENAI_API_KEY in the environment",
    );
  });

  it("with --offline accepts the key from the environment without contacting the provider", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "model: openai:gpt-4o-mini\n");
    const { context, stdout } = testContext({ cwd: dir, env: { OPENAI_API_KEY: "sk-test" } });
    expect(await runCli(["doctor", "--offline"], context)).toBe(0);
    expect(stdout.text).toContain(
      "ok       model: openai:gpt-4o-mini (key present; not contacted: --offline)",
    );
    expect(stdout.text).not.toContain("sk-test");
  });

  it("asks the model for one token, and names the URL it could not reach", async () => {
    const stub = await ModelStub.start();
    try {
      const model = (baseUrl: string) =>
        `model: ${JSON.stringify({ provider: "openai-compatible", baseUrl, model: "stub", apiKey: "x" })}\n`;
      await writeFile(join(dir, "switchboard.yaml"), model(stub.baseUrl));
      const reachable = testContext({ cwd: dir });
      expect(await runCli(["doctor"], reachable.context)).toBe(0);
      expect(reachable.stdout.text).toContain(
        `ok       model: openai-compatible:stub at ${stub.baseUrl} (answered a one-token request)`,
      );
      expect(stub.requests).toHaveLength(1);
      const body = stub.requests[0]?.body as { max_tokens?: number; max_completion_tokens?: number };
      expect(body.max_tokens ?? body.max_completion_tokens).toBe(1);

      const closed = await closedPortUrl();
      await writeFile(join(dir, "switchboard.yaml"), model(closed));
      const unreachable = testContext({ cwd: dir });
      expect(await runCli(["doctor"], unreachable.context)).toBe(1);
      expect(unreachable.stdout.text).toMatch(
        /^problem +model: openai-compatible:stub at (\S+): no answer from (\S+): .*ECONNREFUSED.* — fix: .*--offline skips this check\)$/m,
      );
      expect(unreachable.stdout.text).toContain(`no answer from ${closed}: `);
      const skipped = testContext({ cwd: dir });
      expect(await runCli(["doctor", "--offline"], skipped.context)).toBe(0);
    } finally {
      await stub.close();
    }
  });

  it("reports every tool an agent lists that does not exist, as start would refuse it", async () => {
    const config = [
      "tools:",
      "  - name: track_parcel",
      "    description: track a parcel",
      "    url: http://127.0.0.1:9/track",
      "team:",
      "  supervisor:",
      "    prompt: You help.",
      "    tools: [track_parcel, search_memory]",
      "  specialists:",
      "    - name: billing",
      "      description: invoices",
      "      prompt: You bill.",
      "      tools: [track_parcle, find_tools, refund]",
    ];
    await writeFile(join(dir, "switchboard.yaml"), `${config.join("\n")}\n`);
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(1);
    const team = linesOf(stdout.text).filter((line) => line.includes(" team: "));
    expect(team).toEqual([
      "ok       team: supervisor, billing",
      expect.stringMatching(
        /^problem +team: agent billing lists tool "track_parcle", which does not exist \(known tools: track_parcel, find_tools, search_memory\) — fix: /,
      ),
      expect.stringMatching(/^problem +team: agent billing lists tool "refund", which does not exist/),
    ]);
  });

  it("says when a file without team: runs the supervisor alone instead of the example's specialists", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "model: offline\n");
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(0);
    expect(stdout.text).toContain(
      "warning  config: switchboard.yaml has no team: section, so the supervisor answers alone, not the example's team (its specialists billing, tech_support, scheduling are not used)",
    );
    expect(stdout.text).toContain(
      "ok       team: supervisor (no specialists: the supervisor answers everything)",
    );
  });

  it("checks an enabled platform's credentials through its adapter", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "discord:\n  apiUrl: http://127.0.0.1:1/api\n");
    const { context, stdout } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_DISCORD_TOKEN: "not-a-real-token" },
    });
    expect(await runCli(["doctor"], context)).toBe(1);
    expect(stdout.text).toMatch(
      /^problem +discord: .*127\.0\.0\.1:1.* — fix: see packages\/discord\/README\.md$/m,
    );
    expect(stdout.text).not.toContain("not-a-real-token");
  });

  it("reports each configuration problem and skips the checks that need a valid configuration", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  midRunPolicy: later\n");
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["doctor"], context)).toBe(1);
    const lines = linesOf(stdout.text);
    expect(lines).toContainEqual(
      'problem  config: switchboard.yaml: engine.midRunPolicy: expected one of queue | collect | interrupt, got "later" — fix: edit the file (switchboard init --config switchboard.example.yaml writes the commented example beside it)',
    );
    expect(lines).toContainEqual("skipped  store: the configuration is not valid");
  });
});

describe("checkNode", () => {
  it.each([
    ["22.18.0", "ok"],
    ["22.23.3", "ok"],
    ["24.1.0", "ok"],
    ["22.17.1", "problem"],
    ["20.19.5", "problem"],
  ])("%s → %s", (version, status) => {
    expect(checkNode(version).status).toBe(status);
  });
});
