import { type AgentIdentity, isEmojiIcon, withNamePrefix } from "@switchboard/core/adapter";

/** The bot token scope that lets an app post under a per-message name and icon. */
export const CUSTOMIZE_SCOPE = "chat:write.customize";

/** Slack's per-message authorship fields (chat.postMessage, chat.update, chat.startStream). */
export type SlackAuthorship =
  | { readonly username: string; readonly icon_emoji?: never; readonly icon_url?: never }
  | { readonly username: string; readonly icon_emoji: string; readonly icon_url?: never }
  | { readonly username: string; readonly icon_url: string; readonly icon_emoji?: never };

/**
 * How a message shows the agent that wrote it: with `chat:write.customize`, as Slack's own name
 * and icon of the message; without it, the agent's name in bold in front of the text.
 */
export interface SlackFace {
  readonly authorship?: SlackAuthorship;
  /** The markdown to post: the text itself, or with the agent's name in front. */
  readonly markdown: string;
}

export function slackFace(
  markdown: string,
  identity: AgentIdentity | undefined,
  customize: boolean,
): SlackFace {
  if (!identity) return { markdown };
  if (!customize) return { markdown: withNamePrefix(markdown, identity.name) };
  const { name, icon } = identity;
  const authorship: SlackAuthorship =
    icon === undefined
      ? { username: name }
      : isEmojiIcon(icon)
        ? { username: name, icon_emoji: icon }
        : { username: name, icon_url: icon };
  return { authorship, markdown };
}

/**
 * The custom name and icon a message shows, as Slack describes it (`username`, `icons`), to keep
 * them on an update of that message; undefined for a message in the app's own name.
 */
export function authorshipShown(message: {
  readonly username?: unknown;
  readonly icons?: unknown;
}): SlackAuthorship | undefined {
  if (typeof message.username !== "string" || message.username === "") return undefined;
  const icons = (typeof message.icons === "object" && message.icons !== null ? message.icons : {}) as {
    emoji?: unknown;
    image_48?: unknown;
  };
  if (typeof icons.emoji === "string") return { username: message.username, icon_emoji: icons.emoji };
  if (typeof icons.image_48 === "string") return { username: message.username, icon_url: icons.image_48 };
  return { username: message.username };
}
