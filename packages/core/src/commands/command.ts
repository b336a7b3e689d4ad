import type { InboundMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";

export interface CommandContext {
  readonly key: string;
  readonly conversation: ConversationRef;
  readonly message: InboundMessage;
  /** Everything after the command word, trimmed. */
  readonly args: string;
  /** The prefix to name in replies (`/` or `!`): one that works on the conversation's platform. */
  readonly prefix: string;
}

export interface CommandResult {
  /** Shown in the thread. */
  readonly reply?: string;
  /** Text the team answers next, in the same turn (e.g. `/supervisor show me my invoices`). */
  readonly thenAnswer?: string;
}

/** A chat command. The same text works on every platform; adapters translate native forms. */
export interface Command {
  readonly name: string;
  /** `[message]`-style argument hint for /help. */
  readonly usage?: string;
  readonly summary: string;
  run(context: CommandContext): Promise<CommandResult>;
}

export interface ParsedCommand {
  readonly name: string;
  readonly args: string;
}

/** `/word rest…` or `!word rest…` → the lowercased word and the rest; anything else → null. */
export function parseCommand(text: string, prefixes: readonly string[]): ParsedCommand | null {
  const trimmed = text.trim();
  const prefix = prefixes.find((candidate) => trimmed.startsWith(candidate));
  if (!prefix) return null;
  const match = /^([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/i.exec(trimmed.slice(prefix.length));
  if (!match?.[1]) return null;
  return { name: match[1].toLowerCase(), args: (match[2] ?? "").trim() };
}
