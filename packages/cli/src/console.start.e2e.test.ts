/**
 * `switchboard start` with an `http:` section serves the operator console: the address is printed,
 * a generated token is printed once and kept in the store, a restart keeps it, and the console's
 * chat answers through the same pipeline as the terminal.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "./cli-test-context.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-console-start-"));
  await writeFile(join(dir, "switchboard.yaml"), "http:\n  port: 0\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts, waits for the console line, hands it to `use`, then stops the process. */
async function withStartedConsole(env: Record<string, string>, use: (line: string) => Promise<void>) {
  const run = testContext({ cwd: dir, keepStdinOpen: true, env });
  const exit = runCli(["start"], run.context);
  const line = await waitFor(
    "the console line",
    () => run.stderr.text.split("\n").find((candidate) => candidate.startsWith("console: ")),
    15_000,
  );
  try {
    await use(line);
  } finally {
    run.shutdown.abort(new Error("SIGTERM"));
    expect(await exit).toBe(0);
  }
  return run.stderr.text;
}

describe("switchboard start serves the operator console", () => {
  it("prints a generated token once, keeps it across a restart, and refuses requests without it", async () => {
    let token = "";
    let address = "";
    await withStartedConsole({}, async (line) => {
      const match = /^console: (http:\/\/\S+\/console)\?token=(\S+) /.exec(line);
      expect(match).not.toBeNull();
      address = match?.[1] ?? "";
      token = match?.[2] ?? "";
      expect((await fetch(`${address}/conversations`)).status).toBe(401);
      const opened = await fetch(`${address}/conversations`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(opened.status).toBe(200);
      expect(await opened.text()).not.toContain(token);
    });
    const second = await withStartedConsole({}, async (line) => {
      expect(line).not.toContain(token);
      expect(line).toContain("token generated on the first start");
      const restarted = /^console: (\S+) /.exec(line)?.[1] ?? "";
      const opened = await fetch(`${restarted}/health`, { headers: { authorization: `Bearer ${token}` } });
      expect(opened.status).toBe(200);
    });
    expect(second).not.toContain(token);
  });

  it("takes the token from SWITCHBOARD_CONSOLE_TOKEN and answers in its web chat", async () => {
    const token = "an-operator-chosen-console-token";
    await withStartedConsole({ SWITCHBOARD_CONSOLE_TOKEN: token }, async (line) => {
      expect(line).toContain("token from http.consoleToken");
      const address = /^console: (\S+) /.exec(line)?.[1] ?? "";
      const auth = { authorization: `Bearer ${token}` };
      const sent = await fetch(`${address}/chat/send`, {
        method: "POST",
        headers: { ...auth, "x-console-fragment": "1", cookie: "sb_chat_session=startedconsole1" },
        body: new URLSearchParams({ thread: "main", text: "I was charged twice" }),
      });
      expect(sent.status).toBe(200);
      const page = await waitFor("the answer in the chat", async () => {
        const text = await (
          await fetch(`${address}/chat?thread=main`, {
            headers: { ...auth, cookie: "sb_chat_session=startedconsole1" },
          })
        ).text();
        return text.includes("supervisor here") ? text : undefined;
      });
      expect(page).toContain("I was charged twice");
      expect(page).toContain('<span class="agent">supervisor</span>');
      expect(
        (await fetch(`${address}/chat`, { headers: { authorization: "Bearer wrong-token-entirely" } }))
          .status,
      ).toBe(401);
    });
  });
});
