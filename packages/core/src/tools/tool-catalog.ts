import type { StructuredToolInterface } from "@langchain/core/tools";
import { tool } from "@langchain/core/tools";
import type Keyv from "keyv";
import { z } from "zod";
import type { Store } from "../store/types.ts";
import { keywordOverlap } from "../text/keywords.ts";
import { parameterNames } from "./http-tool-parameters.ts";

export interface CatalogEntry {
  readonly tool: StructuredToolInterface;
  /** Waits for the requesting user's (or an admin's) `/approve` before it runs. */
  readonly requiresApproval: boolean;
  /** The progress text while it runs ("is checking your invoice…"). */
  readonly status?: string;
}

/**
 * Tools that come and go while the process runs: an MCP server's, known once it has connected.
 * `placeholder` stands in for a name the source owns but does not know yet (its server is still
 * down), so an agent can list it in `tools:` and a call says the server is unavailable.
 */
export interface ToolSource {
  entries(): readonly CatalogEntry[];
  placeholder?(name: string): CatalogEntry | undefined;
}

const MAX_MATCHES = 3;

/**
 * Every tool an operator configured — HTTP tools and every MCP server's tools, under names that
 * cannot collide. Agents use the ones their config names; `find_tools` lets an agent discover more
 * by name, description and parameter names, and attaches them to its conversation for the next run.
 */
export class ToolCatalog {
  readonly #static: readonly CatalogEntry[];
  readonly #sources: readonly ToolSource[];
  readonly #attached: Keyv<string[]>;

  constructor(entries: readonly CatalogEntry[], store: Store, sources: readonly ToolSource[] = []) {
    this.#static = entries;
    this.#sources = sources;
    this.#attached = store.namespace<string[]>("attached-tools");
  }

  /**
   * Tools by name, for agents' `tools:` lists (find_tools included). `wanted` names a source owns
   * but has not listed yet get its placeholder, so a server that is down at start-up fails calls,
   * not the start.
   */
  registry(wanted: readonly string[] = []): Record<string, StructuredToolInterface> {
    const entries = this.#entries();
    for (const name of wanted) {
      const placeholder = entries.has(name) ? undefined : this.#placeholder(name);
      if (placeholder) entries.set(name, placeholder);
    }
    return {
      ...Object.fromEntries([...entries].map(([name, entry]) => [name, entry.tool])),
      find_tools: this.findToolsTool(),
    };
  }

  /** A tool's progress text, when its configuration gives one. */
  statusOf(name: string): string | undefined {
    return this.#entry(name)?.status;
  }

  needsApproval(name: string): boolean {
    return this.#entry(name)?.requiresApproval === true;
  }

  /** The best matches for `query` by name, description and parameter names, leaving out `exclude`. */
  search(query: string, exclude: readonly string[] = []): CatalogEntry[] {
    return [...this.#entries().values()]
      .filter((entry) => !exclude.includes(entry.tool.name))
      .map((entry) => ({ entry, score: keywordOverlap(query, searchText(entry.tool)) }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_MATCHES)
      .map(({ entry }) => entry);
  }

  async attachedTools(conversationKey: string, agent: string): Promise<StructuredToolInterface[]> {
    const names = (await this.#attached.get(attachmentKey(conversationKey, agent))) ?? [];
    return names.flatMap((name) => {
      const entry = this.#entry(name);
      return entry ? [entry.tool] : [];
    });
  }

  async attach(conversationKey: string, agent: string, names: readonly string[]): Promise<void> {
    const key = attachmentKey(conversationKey, agent);
    const current = (await this.#attached.get(key)) ?? [];
    await this.#attached.set(key, [...new Set([...current, ...names])]);
  }

  async detachAll(conversationKey: string, agents: readonly string[]): Promise<void> {
    for (const agent of agents) await this.#attached.delete(attachmentKey(conversationKey, agent));
  }

  /**
   * `find_tools`: attaches matching tools to the calling agent in this conversation and ends the
   * run (returnDirect) — only a new run binds new tools; the request tracker starts it.
   */
  findToolsTool(): StructuredToolInterface {
    const found = tool(
      async ({ query }, config) => {
        const key = String(config?.configurable?.thread_id ?? "");
        const agent = String(config?.configurable?.agent ?? "");
        const have = (await this.attachedTools(key, agent)).map((t) => t.name);
        const matches = this.search(query, have);
        if (matches.length === 0) return `No tools match "${query}".`;
        await this.attach(
          key,
          agent,
          matches.map((m) => m.tool.name),
        );
        return `Attached: ${matches.map((m) => `${m.tool.name} (${m.tool.description})`).join("; ")}. They are available in the next run.`;
      },
      {
        name: "find_tools",
        description:
          "Search the tool catalog by what you need to do and attach the matching tools for your next step.",
        schema: z.object({ query: z.string().describe("what the tool should do") }),
      },
    );
    found.returnDirect = true;
    return found;
  }

  /** Configured tools first: a source never shadows one (their names cannot collide anyway). */
  #entries(): Map<string, CatalogEntry> {
    const entries = new Map<string, CatalogEntry>();
    for (const entry of [...this.#static, ...this.#sources.flatMap((source) => source.entries())])
      if (!entries.has(entry.tool.name)) entries.set(entry.tool.name, entry);
    return entries;
  }

  #entry(name: string): CatalogEntry | undefined {
    return this.#entries().get(name) ?? this.#placeholder(name);
  }

  #placeholder(name: string): CatalogEntry | undefined {
    for (const source of this.#sources) {
      const placeholder = source.placeholder?.(name);
      if (placeholder) return placeholder;
    }
    return undefined;
  }
}

function searchText(found: StructuredToolInterface): string {
  // `lookup_order`, `orderId`: the words a person would write.
  const words = (text: string) => text.replaceAll("_", " ").replace(/([a-z])([A-Z])/g, "$1 $2");
  return [words(found.name), found.description, ...parameterNames(found.schema).map(words)].join(" ");
}

function attachmentKey(conversationKey: string, agent: string): string {
  return `${agent}@${conversationKey}`;
}
