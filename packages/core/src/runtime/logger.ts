export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

/** Structured log lines; the CLI decides where they go. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function renderValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? `${value.name}: ${value.message}`);
  if (typeof value === "string") return /^[\w.:/@$!#%+-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** `level message key=value …` lines on the given stream (stderr by default: stdout is the console chat). */
export function createStreamLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: LogFields) => {
    if (ORDER[at] < ORDER[level]) return;
    const rendered = Object.entries(fields ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => ` ${key}=${renderValue(value)}`)
      .join("");
    write(`${new Date().toISOString()} ${at.padEnd(5)} ${message}${rendered}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Keeps every line in memory; tests assert on what an operator would read. */
export function createMemoryLogger(): Logger & {
  lines: { level: LogLevel; message: string; fields: LogFields }[];
} {
  const lines: { level: LogLevel; message: string; fields: LogFields }[] = [];
  const at =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}) => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
