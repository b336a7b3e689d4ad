import { type ConversationRef, encodeConversationKey } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import type {
  AdapterHarness,
  ObservedPost,
  SimulatedMessage,
} from "../../../packages/core/src/testing/index.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../../../packages/discord/src/index.ts";
import { FakeDiscord } from "./fake-discord.ts";
import { ChannelKind, type ChannelRecord, type MessageRecord } from "./records.ts";

export interface DiscordHarness extends AdapterHarness {
  readonly discord: DiscordAdapter;
  readonly fake: FakeDiscord;
}

/**
 * Maps what the bot posted back to conversations using only the stand-in's state: a DM is its
 * channel, a thread message belongs to the thread. A message posted in a thread started from
 * the origin answers that origin even without a reply reference — Discord refuses replies
 * across channels, and the thread hanging off the message is how Discord shows the answer.
 */
export function observePost(fake: FakeDiscord, message: MessageRecord): ObservedPost {
  const channel = fake.channel(message.channelId);
  if (!channel) throw new Error(`the bot posted into unknown channel ${message.channelId}`);
  const base = { id: message.id, text: message.content };
  const replyTo = message.interaction ? `interaction-${message.interaction.id}` : message.referenceId;
  const withReply = (conversation: ConversationRef, fallback?: string) => {
    const answers = replyTo ?? fallback;
    return { ...base, conversation, ...(answers === undefined ? {} : { replyTo: answers }) };
  };
  if (channel.type === ChannelKind.DM) return withReply({ platform: "discord", path: ["@dm", channel.id] });
  if (channel.type === ChannelKind.PublicThread) {
    return withReply(
      { platform: "discord", path: [channel.guildId ?? "", channel.parentId ?? "", channel.id] },
      channel.starterMessageId,
    );
  }
  const original = message.interaction
    ? fake.desk.interactions.get(message.interaction.id)?.originalMessageId
    : undefined;
  return withReply({
    platform: "discord",
    path: [channel.guildId ?? "", channel.id, original ?? message.referenceId ?? message.id],
  });
}

export async function createDiscordHarness(options: { autoThread?: boolean } = {}): Promise<DiscordHarness> {
  const fake = await FakeDiscord.start();
  const { world } = fake;
  const discord = await createDiscordAdapter({
    token: fake.token,
    apiUrl: fake.apiUrl,
    commandGuildIds: [world.guildId],
    autoThread: options.autoThread ?? true,
  });
  let lastUserEvent = -1;
  // A person reads a bot message only after the bot has finished its turn. The stand-in stores a
  // message before answering the bot's HTTP request, and the engine indexes it (reply lookup,
  // participation) only after that — a simulated reply sent the very same millisecond would race
  // the bot's own bookkeeping, which no person can. The turn ends with setTyping(false); posts
  // outside a turn (e.g. /stop) show a moment after they were made.
  const visible = new Set<string>();
  const unseen = new Map<string, string[]>();
  const reveal = (key: string) => {
    for (const id of unseen.get(key) ?? []) visible.add(id);
    unseen.delete(key);
  };
  const adapter: Adapter = {
    platform: discord.platform,
    limits: discord.limits,
    check: () => discord.check(),
    start: (sink) => discord.start(sink),
    stop: () => discord.stop(),
    setTyping: async (conversation, active) => {
      await discord.setTyping(conversation, active);
      if (!active) reveal(encodeConversationKey(conversation));
    },
    post: async (message) => {
      const before = new Set(fake.botMessages().map((record) => record.id));
      const posted = await discord.post(message);
      const key = encodeConversationKey(message.conversation);
      const made = fake.botMessages().filter((record) => !before.has(record.id));
      unseen.set(key, [...(unseen.get(key) ?? []), ...made.map((record) => record.id)]);
      setTimeout(() => {
        for (const record of made) visible.add(record.id);
      }, 50).unref();
      return posted;
    },
  };

  const channelFor = (message: SimulatedMessage): ChannelRecord => {
    if (message.replyTo !== undefined) {
      // A Discord client can only reply within the channel the replied message is in.
      const replied = world.messages.get(message.replyTo);
      const channel = replied && fake.channel(replied.channelId);
      if (!channel) throw new Error(`cannot reply to unknown message ${message.replyTo}`);
      return channel;
    }
    if (message.place === "dm") return fake.dmWith(message.from === "other-bot" ? world.otherBot : world.ada);
    if (message.place === "channel") return world.general;
    const [space = "", channelId = "", rootId] = message.place.conversation.path;
    if (space === "@dm") return world.requireChannel(channelId);
    return (rootId && fake.thread(rootId)) || world.requireChannel(channelId);
  };

  return {
    adapter,
    discord,
    fake,
    sampleConversations: [
      { platform: "discord", path: [world.guildId, world.general.id, "1234567890123456789"] },
      { platform: "discord", path: ["@dm", "2234567890123456789"] },
    ],
    platformMessageLimit: 2000,
    measure: (text) => text.length,
    async userSays(message) {
      const author =
        message.from === "self" ? world.bot : message.from === "other-bot" ? world.otherBot : world.ada;
      const record = fake.say({
        channel: channelFor(message),
        author,
        content: message.mention ? `${fake.mention} ${message.text}` : message.text,
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
      });
      lastUserEvent = fake.gateway.sent.length - 1;
      return record.id;
    },
    async redeliverLast() {
      fake.gateway.replay(lastUserEvent);
    },
    posts: () =>
      fake
        .botMessages()
        .filter((message) => message.content !== "" && visible.has(message.id))
        .map((message) => observePost(fake, message)),
    async close() {
      await discord.stop();
      await fake.close();
    },
  };
}
