import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "@switchboard/core/adapter";

function describe(parts: unknown[]): { message: string; fields: Record<string, unknown> } {
  const words: string[] = [];
  const fields: Record<string, unknown> = {};
  for (const part of parts) {
    if (part instanceof Error) fields.error = part;
    else if (typeof part === "string") words.push(part);
    else words.push(JSON.stringify(part) ?? String(part));
  }
  return { message: words.join(" ") || "slack sdk", fields };
}

/** Bolt and its Socket Mode client log through our logger, so one place decides where lines go. */
export function boltLoggerFrom(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const emit =
    (at: "debug" | "info" | "warn" | "error") =>
    (...parts: unknown[]) => {
      const { message, fields } = describe(parts);
      logger[at](`slack sdk: ${message}`, fields);
    };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    // Filtering is the core logger's job; the level is kept only because Bolt reads it back.
    setLevel(next) {
      level = next;
    },
    getLevel: () => level,
    setName() {},
  };
}
