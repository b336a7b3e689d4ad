import type { ConversationRef } from "../../../packages/core/src/index.ts";
import type {
  AdapterHarness,
  ObservedPost,
  SimulatedMessage,
} from "../../../packages/core/src/testing/index.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../../../packages/discord/src/index.ts";
import { FakeDiscord } from "./fake-discord.ts";
import { ChannelKind, type ChannelRecord, type MessageRecord } from "./records.ts";

export interface DiscordHarness extends AdapterHarness {
  readonly adapter: DiscordAdapter;
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
  const adapter = createDiscordAdapter({
    token: fake.token,
    apiUrl: fake.apiUrl,
    commandGuildIds: [world.guildId],
    autoThread: options.autoThread ?? true,
  });
  let lastUserEvent = -1;

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
        .filter((message) => message.content !== "")
        .map((message) => observePost(fake, message)),
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}
