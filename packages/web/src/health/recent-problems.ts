import type { Logger } from "@switchboard/core";
import type { StructuredLogger } from "@switchboard/core/host";

export interface LoggedProblem {
  readonly at: number;
  readonly level: "warn" | "error";
  readonly message: string;
  /** The fields, flattened to one short line (errors by their message; never secrets — the logger's callers keep those out). */
  readonly detail: string;
}

const KEPT = 50;
const DETAIL_CHARS = 400;

/**
 * The latest warnings and errors of this process, for the health page. `logger()` wraps the
 * process logger: every line still goes where it went; warnings and errors are also kept here.
 */
export class RecentProblems {
  readonly #problems: LoggedProblem[] = [];
  readonly #onProblem: () => void;

  constructor(options: { onProblem?: () => void } = {}) {
    this.#onProblem = options.onProblem ?? (() => {});
  }

  logger(inner: Logger): Logger {
    return isStructured(inner) ? this.#structured(inner) : this.#plain(inner);
  }

  /** Component and child loggers keep their names and levels, and still report here. */
  #structured(inner: StructuredLogger): StructuredLogger {
    return {
      ...this.#plain(inner),
      component: (name) => this.#structured(inner.component(name)),
      child: (fields) => this.#structured(inner.child(fields)),
    };
  }

  #plain(inner: Logger): Logger {
    const keep = (level: LoggedProblem["level"]) => (message: string, fields?: Record<string, unknown>) => {
      inner[level](message, fields);
      this.#problems.push({ at: Date.now(), level, message, detail: flatten(fields) });
      if (this.#problems.length > KEPT) this.#problems.shift();
      this.#onProblem();
    };
    return {
      debug: (message, fields) => inner.debug(message, fields),
      info: (message, fields) => inner.info(message, fields),
      warn: keep("warn"),
      error: keep("error"),
    };
  }

  /** Newest first. */
  list(): readonly LoggedProblem[] {
    return [...this.#problems].reverse();
  }
}

function isStructured(logger: Logger): logger is StructuredLogger {
  const candidate = logger as Partial<StructuredLogger>;
  return typeof candidate.component === "function" && typeof candidate.child === "function";
}

function flatten(fields: Record<string, unknown> | undefined): string {
  const text = Object.entries(fields ?? {})
    .filter(([, value]) => value !== undefined)
    .map(
      ([key, value]) =>
        `${key}=${value instanceof Error ? value.message : typeof value === "string" ? value : JSON.stringify(value)}`,
    )
    .join(" ");
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text;
}
