/**
 * How an agent shows itself in a chat: a name and, where the platform shows one, an icon. Set per
 * agent in the team config (`display`); adapters that can show a face per message use it, the
 * others name the agent in the text (`withNamePrefix`), and adapters that know neither ignore it.
 */
export interface AgentIdentity {
  /** The name people read: "Billing", "Tech support". */
  readonly name: string;
  /** An image URL (`https://…`, Matrix `mxc://…`), or an emoji code such as `:moneybag:` (Slack). */
  readonly icon?: string;
}

/** The faces a team's agents post under, handed to adapters before `start` or `check`. */
export interface TeamIdentities {
  /** Agents that have a `display`, by agent name; an agent without one speaks as the bot. */
  readonly agents: Readonly<Record<string, AgentIdentity>>;
  /** The team has one agent that speaks: a supervisor and no specialists. */
  readonly singleAgent: boolean;
}

/** True when `icon` is an emoji code (`:moneybag:`) rather than an image URL. */
export function isEmojiIcon(icon: string): boolean {
  return /^:[a-z0-9_+'-]+:$/i.test(icon);
}

/** Lines that open a markdown block a name in bold must not be glued to (heading, fence, list, quote, table). */
const BLOCK_START = /^(#{1,6}\s|```|~~~|[-*+]\s|\d+[.)]\s|>|\|)/;

/**
 * The message's markdown with the agent's name in front, in bold: on the same line as a plain
 * first paragraph (`**Billing:** Your invoice…`), on a line of its own before a heading, list,
 * quote, table or code block, which must start their line to stay what they are.
 */
export function withNamePrefix(markdown: string, name: string): string {
  const label = `**${escapeBold(name)}:**`;
  if (markdown.trim() === "") return label;
  return BLOCK_START.test(markdown.trimStart()) ? `${label}\n\n${markdown}` : `${label} ${markdown}`;
}

/** A name shown in bold: markdown's own characters in it are escaped, so the name cannot end the bold. */
function escapeBold(name: string): string {
  return name.replaceAll(/([\\*_`~[\]])/g, "\\$1");
}
