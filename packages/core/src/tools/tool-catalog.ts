import type { StructuredToolInterface } from "@langchain/core/tools";
import { tool } from "@langchain/core/tools";
import type Keyv from "keyv";
import { z } from "zod";
import type { Store } from "../store/types.ts";
import { keywordOverlap } from "../text/keywords.ts";

export interface CatalogEntry {
  readonly tool: StructuredToolInterface;
  /** Waits for the requesting user's (or an admin's) `/approve` before it runs. */
  readonly requiresApproval: boolean;
}

const MAX_MATCHES = 3;

/**
 * Every tool an operator configured. Agents use the ones their config names; `find_tools` lets an
 * agent discover more by description and attach them to its conversation, for the next run.
 */
export class ToolCatalog {
  readonly #entries: ReadonlyMap<string, CatalogEntry>;
  readonly #attached: Keyv<string[]>;

  constructor(entries: readonly CatalogEntry[], store: Store) {
    this.#entries = new Map(entries.map((entry) => [entry.tool.name, entry]));
    this.#attached = store.namespace<string[]>("attached-tools");
  }

  /** Tools by name, for agents' `tools:` lists (find_tools included). */
  registry(): Record<string, StructuredToolInterface> {
    return {
      ...Object.fromEntries([...this.#entries].map(([name, entry]) => [name, entry.tool])),
      find_tools: this.findToolsTool(),
    };
  }

  needsApproval(name: string): boolean {
    return this.#entries.get(name)?.requiresApproval === true;
  }

  /** The best matches for `query` by description, leaving out `exclude`. */
  search(query: string, exclude: readonly string[] = []): CatalogEntry[] {
    return [...this.#entries.values()]
      .filter((entry) => !exclude.includes(entry.tool.name))
      .map((entry) => ({
        entry,
        score: keywordOverlap(query, `${entry.tool.name.replaceAll("_", " ")} ${entry.tool.description}`),
      }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_MATCHES)
      .map(({ entry }) => entry);
  }

  async attachedTools(conversationKey: string, agent: string): Promise<StructuredToolInterface[]> {
    const names = (await this.#attached.get(attachmentKey(conversationKey, agent))) ?? [];
    return names.flatMap((name) => {
      const entry = this.#entries.get(name);
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
}

function attachmentKey(conversationKey: string, agent: string): string {
  return `${agent}@${conversationKey}`;
}
