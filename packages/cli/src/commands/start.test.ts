import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-start-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Chat lines the bot wrote: `[place] agent (id)> text`. */
function answers(stdout: string): { place: string; agent: string; text: string }[] {
  return [...stdout.matchAll(/^\[([^\]]+)\] (?!you>)(\S+) \([^)]+\)> (.*)$/gm)].map((m) => ({
    place: m[1]!,
    agent: m[2]!,
    text: m[3]!,
  }));
}

describe("switchboard start with piped input", () => {
  it("answers each line in order, prints a transcript, and exits 0 at end of input", async () => {
    const { context, stdout, stderr } = testContext({ cwd: dir, input: "hello\nsecond question\n" });
    expect(await runCli(["start"], context)).toBe(0);
    expect(stderr.text).toContain(
      "model: offline (built-in, no LLM) — set model: in switchboard.yaml to use a real one",
    );
    const lines = stdout.text.trimEnd().split("\n");
    expect(lines[0]).toBe("[main] you> hello");
    expect(lines.filter((line) => line.includes(" you> "))).toEqual([
      "[main] you> hello",
      "[main] you> second question",
    ]);
    const replies = answers(stdout.text);
    expect(replies.map((reply) => reply.text)).toEqual([
      expect.stringContaining('You said: "hello"'),
      expect.stringContaining('You said: "second question"'),
    ]);
    expect(replies.every((reply) => reply.text.startsWith("[offline model]"))).toBe(true);
    expect(existsSync(join(dir, "data", "switchboard.db"))).toBe(true);
  });

  it("runs the example team on the offline model: each kind of question reaches its specialist", async () => {
    const input = [
      ":new a",
      "I was charged twice",
      ":new b",
      "the app crashes on login",
      ":new c",
      "book a meeting",
      ":new d",
      "hello",
    ];
    const { context, stdout } = testContext({ cwd: dir, input: `${input.join("\n")}\n` });
    expect(await runCli(["start"], context)).toBe(0);
    expect(answers(stdout.text).map(({ place, agent }) => `${place}:${agent}`)).toEqual([
      "a:billing",
      "b:tech_support",
      "c:scheduling",
      "d:supervisor",
    ]);
  });

  it("answers every piped line even when new messages interrupt running turns", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  midRunPolicy: interrupt\n");
    const { context, stdout } = testContext({ cwd: dir, input: "one\ntwo\nthree\n" });
    expect(await runCli(["start"], context)).toBe(0);
    expect(answers(stdout.text).map((reply) => /You said: "(\w+)"/.exec(reply.text)?.[1])).toEqual([
      "one",
      "two",
      "three",
    ]);
  });

  it("keeps console threads apart and remembers the current one across restarts", async () => {
    const first = testContext({ cwd: dir, input: ":new orders\nwhere is my parcel\n" });
    expect(await runCli(["start"], first.context)).toBe(0);
    expect(first.stdout.text).toContain("(now in orders)");
    expect(answers(first.stdout.text).map((reply) => reply.place)).toEqual(["orders"]);

    const second = testContext({ cwd: dir, input: "/status\n:switch main\n/status\n" });
    expect(await runCli(["start"], second.context)).toBe(0);
    const [orders, main] = second.stdout.text.split("(now in main)");
    expect(orders).toContain("[orders] you> /status");
    expect(orders).toContain("Messages in this conversation: 1.");
    expect(main).toContain("Messages in this conversation: 0.");
  });

  it("stops cleanly on a shutdown signal while waiting for input", async () => {
    const run = testContext({ cwd: dir, input: "hello\n", keepStdinOpen: true });
    const code = runCli(["start"], run.context);
    await waitFor("the first answer", () => answers(run.stdout.text).length === 1);
    run.shutdown.abort(new Error("SIGTERM"));
    expect(await code).toBe(0);
    expect(run.stderr.text).toContain("switchboard: stopped");
    // The lock and the store were released: the next start in the same directory works at once.
    const next = testContext({ cwd: dir, input: "/status\n" });
    expect(await runCli(["start"], next.context)).toBe(0);
    expect(next.stdout.text).toContain("Messages in this conversation: 1.");
  });

  it("refuses an invalid configuration with exit code 2, naming the key", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  midRunPolicy: later\n");
    const { context, stderr, stdout } = testContext({ cwd: dir, input: "hello\n" });
    expect(await runCli(["start"], context)).toBe(2);
    expect(stderr.text).toBe(
      'switchboard: the configuration is not valid:\n  switchboard.yaml: engine.midRunPolicy: expected one of queue | collect | interrupt, got "later"\n',
    );
    expect(stdout.text).toBe("");
  });

  it("explains an unreachable store and exits 1", async () => {
    const { context, stderr } = testContext({
      cwd: dir,
      input: "hello\n",
      env: { SWITCHBOARD_STORE_URL: "redis://127.0.0.1:1" },
    });
    expect(await runCli(["start"], context)).toBe(1);
    expect(stderr.text).toMatch(/switchboard: cannot start: could not connect to Redis \(127\.0\.0\.1:1\)/);
  });

  it("explains a platform that cannot be reached, without a stack trace, and exits 1", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "discord:\n  apiUrl: http://127.0.0.1:1/api\n");
    const { context, stderr } = testContext({
      cwd: dir,
      env: { SWITCHBOARD_DISCORD_TOKEN: "not-a-real-token" },
    });
    expect(await runCli(["start"], context)).toBe(1);
    expect(stderr.text).toMatch(/^switchboard: cannot start: .*127\.0\.0\.1:1.*$/m);
    expect(stderr.text).not.toMatch(/^\s+at /m);
  });
});
