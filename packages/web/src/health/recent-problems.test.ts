import { createPinoLogger } from "@switchboard/core";
import { componentLogger } from "@switchboard/core/host";
import { createMemoryLogger } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { RecentProblems } from "./recent-problems.ts";

describe("recent problems for the health page", () => {
  it("keeps warnings and errors, newest first, and passes every line on unchanged", () => {
    let told = 0;
    const problems = new RecentProblems({ onProblem: () => told++ });
    const inner = createMemoryLogger();
    const logger = problems.logger(inner);
    logger.info("fine", { a: 1 });
    logger.warn("slow platform", { platform: "slack", error: new Error("timeout") });
    logger.error("turn failed", { key: "web:s:main" });
    expect(inner.lines.map((line) => line.message)).toEqual(["fine", "slow platform", "turn failed"]);
    expect(problems.list().map((p) => [p.level, p.message, p.detail])).toEqual([
      ["error", "turn failed", "key=web:s:main"],
      ["warn", "slow platform", "platform=slack error=timeout"],
    ]);
    expect(told).toBe(2);
  });

  it("keeps the last 50 only", () => {
    const problems = new RecentProblems();
    const logger = problems.logger(createMemoryLogger());
    for (let i = 0; i < 60; i++) logger.warn(`problem ${i}`);
    expect(problems.list()).toHaveLength(50);
    expect(problems.list()[0]?.message).toBe("problem 59");
  });
});

describe("recent problems over a structured logger", () => {
  it("keeps component loggers working, named and levelled, and still collects their problems", () => {
    const lines: string[] = [];
    const problems = new RecentProblems();
    const logger = problems.logger(
      createPinoLogger({
        level: "info",
        components: { engine: "error" },
        pretty: false,
        write: (line) => lines.push(line),
      }),
    );
    const engine = componentLogger(logger, "engine");
    engine.warn("below the engine's level");
    engine.error("lock lost", { key: "web:s:main" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ component: "engine", msg: "lock lost" });
    // The problem list is this process's, whatever a component's level hides from the log.
    expect(problems.list().map((p) => p.message)).toEqual(["lock lost", "below the engine's level"]);
  });
});
