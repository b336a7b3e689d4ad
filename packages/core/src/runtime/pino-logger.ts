import { createRequire } from "node:module";
import pino, { type Logger as Pino } from "pino";
import { currentLogContext } from "./log-context.ts";
import type { LogFields, Logger, LogLevel } from "./logger.ts";
import { SecretRedactor } from "./redact.ts";

export interface PinoLoggerOptions {
  /** Level of every component without its own. */
  readonly level: LogLevel;
  /** Levels per component (`memory: debug`, `engine: warn`…), applied to `componentLogger`. */
  readonly components?: Readonly<Record<string, LogLevel>>;
  /** Human-readable lines (a terminal) instead of one JSON object per line. */
  readonly pretty: boolean;
  /** Values that must never reach a log line (configured tokens, keys, passwords). */
  readonly secrets?: Iterable<string>;
  /** Where each finished line goes (stderr by default). */
  readonly write?: (line: string) => void;
}

/** A `Logger` whose children can carry fields and a component's own level. */
export interface StructuredLogger extends Logger {
  child(fields: LogFields): StructuredLogger;
  /** A component's logger: its lines carry `component`, at the component's configured level. */
  component(name: string): StructuredLogger;
}

/**
 * Structured logs on pino: JSON lines when not on a terminal, pretty on one. Every line carries
 * the fields of the `withLogContext` it was written in (conversation key, request id, run id), and
 * passes through the redactor last, so no secret from the configuration leaves the process.
 */
export function createPinoLogger(options: PinoLoggerOptions): StructuredLogger {
  const redactor = new SecretRedactor(options.secrets);
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const prettify = options.pretty ? loadPrettifier() : undefined;
  const destination = {
    write(line: string) {
      const safe = redactor.text(line);
      write(prettify ? prettify(safe) : safe);
    },
  };
  const root = pino(
    {
      level: lowestLevel(options),
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactor.value(object) as Record<string, unknown>,
      },
      mixin: () => currentLogContext(),
    },
    destination,
  );
  return wrap(root.child({}, { level: options.level }), options);
}

function wrap(instance: Pino, options: PinoLoggerOptions): StructuredLogger {
  const emit = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (fields === undefined) instance[level](message);
    else instance[level](fields, message);
  };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    child: (fields) => wrap(instance.child(fields), options),
    component: (name) =>
      wrap(
        instance.child({ component: name }, { level: options.components?.[name] ?? options.level }),
        options,
      ),
  };
}

/** The root must let through the most verbose level any component asks for; children filter. */
function lowestLevel(options: PinoLoggerOptions): LogLevel {
  const order: LogLevel[] = ["debug", "info", "warn", "error"];
  const levels = [options.level, ...Object.values(options.components ?? {})];
  return order.find((level) => levels.includes(level)) ?? options.level;
}

/** `logger.component(name)` when the logger has components, else the logger itself. */
export function componentLogger(logger: Logger, name: string): Logger {
  const structured = logger as Partial<StructuredLogger>;
  return typeof structured.component === "function" ? structured.component(name) : logger;
}

/** pino-pretty is loaded only for a terminal: a service writing JSON never pays for it at start-up. */
function loadPrettifier(): (record: string) => string {
  const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
  return prettyFactory({ colorize: false, translateTime: "SYS:HH:MM:ss.l", ignore: "hostname,pid" });
}
