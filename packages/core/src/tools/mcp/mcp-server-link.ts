import { AsyncLocalStorage } from "node:async_hooks";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type ToolRequestContext, toolRequestContext } from "../request-context.ts";
import type { McpServerConfig } from "./mcp-config.ts";
import type { ConnectMcpSession, McpSession } from "./mcp-session.ts";
import { isToolOffered } from "./tool-patterns.ts";

export type McpServerStatus = "connecting" | "connected" | "down" | "stopped";

/** One server's state, for `doctor`, `/status` and metrics. */
export interface McpServerState {
  readonly name: string;
  readonly transport: McpServerConfig["transport"];
  readonly status: McpServerStatus;
  /** Tools offered (after allow/deny); the last known list while down. */
  readonly tools: number;
  /** Epoch ms of the last status change. */
  readonly since: number;
  /** Why it is down (or why the last attempt failed). */
  readonly lastError?: string;
  /** Failed attempts since it was last connected. */
  readonly failedAttempts: number;
  /** Epoch ms of the next reconnect attempt, while down. */
  readonly nextAttemptAt?: number;
}

/** The server is down (or stopped): its tools answer with this, as a tool result the model reads. */
export class McpServerUnavailableError extends Error {
  constructor(server: string, reason: string | undefined) {
    super(
      `the tool server "${server}" is unavailable${reason ? ` (${reason})` : ""}; Switchboard is reconnecting. ` +
        "Tell the user this tool cannot be used right now, or try again later.",
    );
    this.name = "McpServerUnavailableError";
  }
}

/** A tool call took longer than its server's `callTimeoutSeconds`; the server itself stays up. */
export class McpToolTimeoutError extends Error {
  constructor(server: string, tool: string, seconds: number) {
    super(
      `${tool} of the tool server "${server}" did not answer within ${seconds} s (its callTimeoutSeconds)`,
    );
    this.name = "McpToolTimeoutError";
  }
}

const PING_AFTER_FAILURE_MS = 2_000;
const SDK_TIMEOUT_MARGIN_MS = 1_000;

export interface McpServerLinkOptions {
  readonly config: McpServerConfig;
  readonly connect: ConnectMcpSession;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly clientVersion: string;
  readonly onChange: () => void;
}

/**
 * Keeps one MCP server connected: connects, notices when the connection is lost (the process
 * exited, or a failed call whose ping fails too), and reconnects with exponential backoff. A call
 * while it is down fails at once with McpServerUnavailableError — never a hang, never a crash.
 */
export class McpServerLink {
  readonly config: McpServerConfig;
  readonly #options: McpServerLinkOptions;
  readonly #context = new AsyncLocalStorage<ToolRequestContext>();
  #session: McpSession | undefined;
  /** The offered tools by their MCP names; kept while down so the catalog still lists them. */
  #tools = new Map<string, DynamicStructuredTool>();
  #status: McpServerStatus = "connecting";
  #since: number;
  #lastError: string | undefined;
  #failedAttempts = 0;
  #nextAttemptAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #connecting: Promise<void> | undefined;

  constructor(options: McpServerLinkOptions) {
    this.config = options.config;
    this.#options = options;
    this.#since = options.clock.now();
  }

  get status(): McpServerStatus {
    return this.#status;
  }

  state(): McpServerState {
    return {
      name: this.config.name,
      transport: this.config.transport,
      status: this.#status,
      tools: this.#tools.size,
      since: this.#since,
      failedAttempts: this.#failedAttempts,
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      ...(this.#nextAttemptAt !== undefined ? { nextAttemptAt: this.#nextAttemptAt } : {}),
    };
  }

  /** The offered tools as the server describes them (names are the server's own). */
  tools(): readonly DynamicStructuredTool[] {
    return [...this.#tools.values()];
  }

  /** One attempt now; on failure the link is down and keeps retrying in the background. */
  connect(): Promise<void> {
    this.#connecting ??= this.#attempt().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Calls the server's tool `name` on behalf of the run in `config`. */
  async call(
    name: string,
    args: Record<string, unknown>,
    config: RunnableConfig | undefined,
  ): Promise<unknown> {
    const session = this.#session;
    const found = this.#tools.get(name);
    if (this.#status !== "connected" || !session)
      throw new McpServerUnavailableError(this.config.name, this.#lastError);
    if (!found) throw new Error(`the tool server "${this.config.name}" no longer offers ${name}`);
    const timeoutMs = this.config.callTimeoutSeconds * 1000;
    // Our own timer, not the SDK's request timeout alone: only this one says for sure that it fired.
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException("call timed out", "TimeoutError")),
      timeoutMs,
    );
    timer.unref();
    const signal = config?.signal ? AbortSignal.any([config.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.#context.run(toolRequestContext(config), () =>
        // The SDK's own limit sits past ours, so ours is the one that ends a slow call.
        found.invoke(args, { signal, metadata: { timeoutMs: timeoutMs + SDK_TIMEOUT_MARGIN_MS } }),
      );
    } catch (error) {
      if (config?.signal?.aborted) throw error;
      if (timeout.signal.aborted)
        throw new McpToolTimeoutError(this.config.name, name, this.config.callTimeoutSeconds);
      // A tool's own error (bad input, isError) leaves the server answering pings; a dead server does not.
      if (session === this.#session && !(await this.#answersPing(session)))
        this.#lost(session, describe(error));
      if (this.#status !== "connected")
        throw new McpServerUnavailableError(this.config.name, this.#lastError);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#set("stopped");
    const session = this.#session;
    this.#session = undefined;
    await session?.close();
  }

  async #attempt(): Promise<void> {
    if (this.#status === "stopped") return;
    clearTimeout(this.#timer);
    this.#nextAttemptAt = undefined;
    this.#set("connecting");
    let session: McpSession;
    try {
      session = await this.#options.connect(this.config, {
        context: this.#context,
        clientVersion: this.#options.clientVersion,
      });
    } catch (error) {
      this.#failedAttempts += 1;
      this.#lastError = describe(error);
      this.#options.logger.warn("MCP server unavailable", {
        server: this.config.name,
        attempt: this.#failedAttempts,
        error: this.#lastError,
      });
      this.#set("down");
      this.#scheduleReconnect();
      return;
    }
    // close() may have run while the attempt was under way.
    if (this.#isStopped()) {
      await session.close();
      return;
    }
    this.#session = session;
    this.#tools = new Map(
      session.tools.filter((t) => isToolOffered(this.config, t.name)).map((t) => [t.name, t]),
    );
    this.#failedAttempts = 0;
    this.#lastError = undefined;
    this.#set("connected");
    this.#options.logger.info("MCP server connected", { server: this.config.name, tools: this.#tools.size });
    session.onLost((reason) => this.#lost(session, reason));
  }

  #lost(session: McpSession, reason: string): void {
    if (session !== this.#session || this.#status === "stopped") return;
    this.#session = undefined;
    this.#lastError = reason;
    this.#options.logger.warn("MCP server connection lost", { server: this.config.name, reason });
    this.#set("down");
    void session.close().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#status === "stopped") return;
    const delayMs = reconnectDelayMs(this.config.reconnect, this.#failedAttempts);
    this.#nextAttemptAt = this.#options.clock.now() + delayMs;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.connect(), delayMs);
    this.#timer.unref();
  }

  async #answersPing(session: McpSession): Promise<boolean> {
    try {
      await session.ping(PING_AFTER_FAILURE_MS);
      return true;
    } catch {
      return false;
    }
  }

  #isStopped(): boolean {
    return this.#status === "stopped";
  }

  #set(status: McpServerStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#since = this.#options.clock.now();
    this.#options.onChange();
  }
}

/**
 * The initial delay after a lost connection or a first failure, doubling per further failure, capped.
 * Not retryWithBackoff (p-retry): the link reconnects in the background for as long as it is down
 * and shows the next attempt's time in its status, where a retry loop awaits one call to its end.
 */
export function reconnectDelayMs(reconnect: McpServerConfig["reconnect"], failedAttempts: number): number {
  const exponent = Math.max(0, failedAttempts - 1);
  return Math.min(reconnect.initialDelaySeconds * 2 ** exponent, reconnect.maxDelaySeconds) * 1000;
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}
