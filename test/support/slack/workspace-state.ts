/** The workspace a Slack stand-in serves: who is who, which channels exist, every message in them. */

export const TEAM_ID = "T0SWITCH";
export const BOT_USER_ID = "U0BOT";
export const BOT_ID = "B0BOT";
export const BOT_NAME = "switchboard";
export const ALICE = "U0ALICE";
export const BOB = "U0BOB";
export const OTHER_BOT_USER_ID = "U0OTHERBOT";
export const OTHER_BOT_ID = "B0OTHER";
/** A public channel the bot is a member of. */
export const GENERAL = "C0GENERAL";
/** A public channel the bot was never invited to. */
export const ELSEWHERE = "C0ELSEWHERE";
/** Alice's direct message with the bot. */
export const ALICE_DM = "D0ALICE";

/** Lets an app post under a per-message name and icon (`username`, `icon_emoji`, `icon_url`). */
export const CUSTOMIZE_SCOPE = "chat:write.customize";

/**
 * The per-message authorship Slack keeps on a message: only for an app with chat:write.customize
 * (without it Slack ignores the fields); `icon_emoji` wins over `icon_url`. An update that leaves
 * them out shows the app's own name and icon again.
 */
export function authorshipOf(
  args: Record<string, unknown>,
  scopes: readonly string[],
): Pick<StoredMessage, "username" | "icons"> {
  if (!scopes.includes(CUSTOMIZE_SCOPE)) return {};
  const username = typeof args.username === "string" && args.username !== "" ? args.username : undefined;
  const emoji = typeof args.icon_emoji === "string" && args.icon_emoji !== "" ? args.icon_emoji : undefined;
  const image = typeof args.icon_url === "string" && args.icon_url !== "" ? args.icon_url : undefined;
  const icons = emoji ? { emoji } : image ? { image_48: image } : undefined;
  return { ...(username ? { username } : {}), ...(icons ? { icons } : {}) };
}

export const ALL_SCOPES = [
  "app_mentions:read",
  "chat:write",
  "channels:history",
  "groups:history",
  "im:history",
  "commands",
  "reactions:write",
  "channels:read",
  "im:read",
  "files:read",
  "files:write",
  "users:read",
];

/** A file as Slack describes it in a message (the bytes are in `WorkspaceState.fileBytes`). */
export interface SlackFile {
  readonly id: string;
  readonly name: string;
  readonly mimetype: string;
  readonly size: number;
  readonly url_private_download: string;
  readonly subtype?: string;
}

export interface StoredMessage {
  readonly channel: string;
  readonly ts: string;
  text: string;
  readonly thread_ts?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly subtype?: string;
  readonly metadata?: { event_type: string; event_payload: Record<string, unknown> };
  edited?: { user: string; ts: string };
  /** Block Kit layout the bot posted (or updated) the message with. */
  blocks?: Record<string, unknown>[];
  /** The per-message name the bot posted under (chat:write.customize), as Slack shows it. */
  username?: string;
  /** The per-message icon: `{ emoji }` or `{ image_48 }` (chat:write.customize). */
  icons?: { emoji?: string; image_48?: string };
  /** Reaction name → users who reacted. */
  readonly reactions: Map<string, Set<string>>;
  /** Files shared with the message. */
  readonly files?: readonly SlackFile[];
}

export interface EphemeralMessage {
  readonly channel: string;
  readonly user: string;
  readonly text: string;
  readonly via: "chat.postEphemeral" | "response_url";
  readonly message_ts?: string;
  readonly blocks?: Record<string, unknown>[];
}

export interface StatusChange {
  readonly channel: string;
  readonly threadTs: string;
  readonly status: string;
}

export interface ChannelInfo {
  readonly id: string;
  /** What people see (`general`); DMs have none. */
  readonly name?: string;
  readonly type: "channel" | "im";
  readonly botIsMember: boolean;
}

export class WorkspaceState {
  readonly channels = new Map<string, ChannelInfo>([
    [GENERAL, { id: GENERAL, name: "general", type: "channel", botIsMember: true }],
    [ELSEWHERE, { id: ELSEWHERE, name: "elsewhere", type: "channel", botIsMember: false }],
    [ALICE_DM, { id: ALICE_DM, type: "im", botIsMember: true }],
  ]);
  readonly messages: StoredMessage[] = [];
  readonly ephemeral: EphemeralMessage[] = [];
  readonly statuses: StatusChange[] = [];
  /** People's profile time zones (`users.info` tz), by user id; people not here have none. */
  readonly timeZones = new Map<string, string>();
  /** Every Web API call, method and arguments, in order. */
  readonly calls: { method: string; args: Record<string, unknown> }[] = [];
  readonly #epoch = Math.floor(Date.now() / 1000);
  #sequence = 0;

  /** Slack message timestamps: unique, increasing, `seconds.micros`. */
  nextTs(): string {
    this.#sequence += 1;
    const seconds = this.#epoch + Math.floor(this.#sequence / 1_000_000);
    return `${seconds}.${String(this.#sequence % 1_000_000).padStart(6, "0")}`;
  }

  find(channel: string, ts: string): StoredMessage | undefined {
    return this.messages.find((message) => message.channel === channel && message.ts === ts);
  }

  /** Bytes of every file people shared or the bot uploaded, by file id. */
  readonly fileBytes = new Map<string, Buffer>();

  add(message: Omit<StoredMessage, "ts" | "reactions">): StoredMessage {
    const stored: StoredMessage = { ...message, ts: this.nextTs(), reactions: new Map() };
    this.messages.push(stored);
    return stored;
  }

  /** Root first, then replies in order: what conversations.replies returns. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    return this.messages
      .filter(
        (message) =>
          message.channel === channel && (message.ts === threadTs || message.thread_ts === threadTs),
      )
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  botMessages(): StoredMessage[] {
    return this.messages.filter((message) => message.bot_id === BOT_ID);
  }

  callsTo(method: string): Record<string, unknown>[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }
}
