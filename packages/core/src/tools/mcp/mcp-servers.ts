import type { ToolFiles } from "../../attachments/tool-files.ts";
import type { Clock } from "../../runtime/clock.ts";
import { systemClock } from "../../runtime/clock.ts";
import { type Logger, silentLogger } from "../../runtime/logger.ts";
import type { CatalogEntry, ToolSource } from "../tool-catalog.ts";
import { McpCatalogTool } from "./mcp-catalog-tool.ts";
import type { McpServerConfig } from "./mcp-config.ts";
import { McpServerLink, type McpServerState } from "./mcp-server-link.ts";
import type { ConnectMcpSession } from "./mcp-session.ts";
import {
  catalogToolName,
  isToolOffered,
  serverOfToolName,
  toolRequiresApproval,
  toolStatusText,
} from "./tool-patterns.ts";

export interface McpServersOptions {
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Sent to servers in the MCP handshake. */
  readonly clientVersion?: string;
  /** Replaces the SDK connection (which is loaded lazily otherwise). */
  readonly connect?: ConnectMcpSession;
  /** Where images and resources that tools return are kept (absent: files are off, only named). */
  readonly files?: ToolFiles;
}

/**
 * Every configured MCP server, as one source of the tool catalog: their tools under
 * `<server>__<tool>`, approval and progress text per tool from the config, and each server's
 * state for `doctor`, `/status` and metrics.
 */
export class McpServers implements ToolSource {
  readonly #links: readonly McpServerLink[];
  readonly #logger: Logger;
  readonly #files: ToolFiles | undefined;
  /** One object per catalog name for the life of the process (agents hold on to them). */
  readonly #tools = new Map<string, McpCatalogTool>();
  readonly #listeners = new Set<(states: readonly McpServerState[]) => void>();

  private constructor(
    links: (onChange: () => void) => McpServerLink[],
    logger: Logger,
    files: ToolFiles | undefined,
  ) {
    this.#logger = logger;
    this.#files = files;
    this.#links = links(() => {
      const states = this.states();
      for (const listener of this.#listeners) listener(states);
    });
  }

  /**
   * Connects every server at once and waits for each first attempt (each bounded by its
   * `connectTimeoutSeconds`). A server that fails is down, not fatal: it keeps reconnecting.
   */
  static async start(
    configs: readonly McpServerConfig[],
    options: McpServersOptions = {},
  ): Promise<McpServers> {
    const logger = options.logger ?? silentLogger;
    const connect =
      options.connect ??
      (configs.length > 0 ? (await import("./mcp-session.ts")).connectMcpSession : undefined);
    const servers = new McpServers(
      (onChange) =>
        connect
          ? configs.map(
              (config) =>
                new McpServerLink({
                  config,
                  connect,
                  logger,
                  clock: options.clock ?? systemClock,
                  clientVersion: options.clientVersion ?? "0.0.0",
                  onChange,
                }),
            )
          : [],
      logger,
      options.files,
    );
    await Promise.all(servers.#links.map((link) => link.connect()));
    return servers;
  }

  entries(): CatalogEntry[] {
    return this.#links.flatMap((link) => link.tools().map((listed) => this.#entry(link, listed.name)));
  }

  /** A configured server's tool it has not listed (yet): the agent keeps it; calls say the server is down. */
  placeholder(name: string): CatalogEntry | undefined {
    const link = this.#links.find((candidate) => candidate.config.name === serverOfToolName(name));
    if (!link || link.status === "connected") return undefined;
    const toolName = name.slice(link.config.name.length + 2);
    if (toolName === "" || !isToolOffered(link.config, toolName)) return undefined;
    return this.#entry(link, toolName);
  }

  states(): McpServerState[] {
    return this.#links.map((link) => link.state());
  }

  /** Called with every server's state after any of them changes (metrics count these). */
  onChange(listener: (states: readonly McpServerState[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reconnects a server now instead of at its next backoff step. */
  async reconnect(name: string): Promise<void> {
    await this.#links.find((link) => link.config.name === name)?.connect();
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.all(this.#links.map((link) => link.close()));
  }

  #entry(link: McpServerLink, toolName: string): CatalogEntry {
    const name = catalogToolName(link.config.name, toolName);
    let found = this.#tools.get(name);
    if (!found) {
      found = new McpCatalogTool(name, link, toolName, this.#logger, this.#files);
      this.#tools.set(name, found);
    }
    const status = toolStatusText(link.config, toolName);
    return {
      tool: found,
      requiresApproval: toolRequiresApproval(link.config, toolName),
      // The progress text shown while it runs ("is looking up your order…").
      ...(status === undefined ? {} : { status }),
    };
  }
}
