import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { testContext } from "./cli-test-context.ts";
import { runCli, USAGE } from "./run-cli.ts";

const version = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("switchboard arguments", () => {
  it.each([
    [["--help"], 0, "stdout", USAGE],
    [["-h"], 0, "stdout", USAGE],
    [["--version"], 0, "stdout", `switchboard ${version}\n`],
    [[], 2, "stderr", USAGE],
    [["launch"], 2, "stderr", `switchboard: unknown command "launch"\n\n${USAGE}`],
    [["start", "now"], 2, "stderr", `switchboard: unexpected argument "now" after start\n\n${USAGE}`],
    [
      ["start", "--verbose"],
      2,
      "stderr",
      `switchboard: Unknown option '--verbose'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--verbose"\n\n${USAGE}`,
    ],
    [["doctor", "--force"], 2, "stderr", "switchboard: --force only applies to init and setup\n"],
  ] as const)("%j → exit %i", async (argv, code, stream, text) => {
    const run = testContext({ cwd: process.cwd() });
    expect(await runCli(argv, run.context)).toBe(code);
    expect(run[stream].text).toBe(text);
  });
});
