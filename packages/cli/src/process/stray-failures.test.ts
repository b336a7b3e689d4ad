import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createMemoryLogger } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { reportStrayFailures } from "./stray-failures.ts";

const run = promisify(execFile);

describe("reportStrayFailures", () => {
  it("logs an unhandled rejection with its error and a count, and does not exit", () => {
    const source = new EventEmitter();
    const logger = createMemoryLogger();
    const exits: number[] = [];
    const failures = reportStrayFailures(source, logger, (code) => exits.push(code));
    source.emit("unhandledRejection", new TypeError("Cannot read properties of null"));
    source.emit("unhandledRejection", null);
    expect(failures.rejections).toBe(2);
    expect(exits).toEqual([]);
    expect(logger.lines.map((line) => line.fields.unhandledRejections)).toEqual([1, 2]);
    expect(String(logger.lines[0]?.fields.error)).toContain("Cannot read properties of null");
    expect(String(logger.lines[1]?.fields.error)).toContain("rejected with null");
  });

  it("logs an uncaught exception and exits 1", () => {
    const source = new EventEmitter();
    const logger = createMemoryLogger();
    const exits: number[] = [];
    reportStrayFailures(source, logger, (code) => exits.push(code));
    source.emit("uncaughtException", new Error("boom"), "uncaughtException");
    expect(exits).toEqual([1]);
    expect(logger.lines[0]?.fields.origin).toBe("uncaughtException");
  });

  it("keeps a real Node process running after a rejection nobody handled", async () => {
    const module = fileURLToPath(new URL("./stray-failures.ts", import.meta.url));
    const script = `
      const { reportStrayFailures } = await import(${JSON.stringify(module)});
      const logger = { debug() {}, info() {}, warn() {}, error: (message) => process.stderr.write(message + "\\n") };
      reportStrayFailures(process, logger, (code) => process.exit(code));
      Promise.reject(new Error("one bad event"));
      setTimeout(() => process.stdout.write("still running"), 50);
    `;
    const { stdout, stderr } = await run(process.execPath, ["--input-type=module", "-e", script]);
    expect(stdout).toBe("still running");
    expect(stderr).toContain("nothing was waiting for it");
  });
});
