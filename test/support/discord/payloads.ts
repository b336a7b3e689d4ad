import type { DiscordCdn } from "./cdn.ts";
import {
  ChannelKind,
  type ChannelRecord,
  type MessageRecord,
  type UserRecord,
  type WebhookRecord,
} from "./records.ts";

/** Lookups the payload builders need from the world. */
export interface PayloadSource {
  user(id: string): UserRecord;
  channel(id: string): ChannelRecord | undefined;
  message(id: string): MessageRecord | undefined;
  readonly applicationId: string;
  readonly botUserId: string;
  readonly botRoleId: string;
  readonly cdn: DiscordCdn;
}

const iso = (at: number) => new Date(at).toISOString();
const ALL_PERMISSIONS = "2251799813685247";

export function userPayload(user: UserRecord) {
  return {
    id: user.id,
    username: user.username,
    global_name: user.bot ? null : user.username,
    discriminator: "0",
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
    public_flags: 0,
    flags: 0,
  };
}

/** A channel webhook as GET /channels/{id}/webhooks and POST …/webhooks answer (with its token). */
export function webhookPayload(source: PayloadSource, webhook: WebhookRecord) {
  return {
    id: webhook.id,
    type: 1,
    guild_id: webhook.guildId,
    channel_id: webhook.channelId,
    name: webhook.name,
    avatar: null,
    token: webhook.token,
    application_id: webhook.applicationId,
    user: userPayload(source.user(webhook.creatorId)),
  };
}

/** The author of a webhook's message: the webhook's id, with the name (and avatar) the message was sent with. */
function webhookAuthorPayload(webhook: NonNullable<MessageRecord["webhook"]>) {
  return {
    id: webhook.id,
    username: webhook.username,
    // Discord keeps a hash of the fetched image; the stand-in keeps the URL it was given.
    avatar: webhook.avatarUrl ?? null,
    discriminator: "0000",
    global_name: null,
    bot: true,
    public_flags: 0,
    flags: 0,
  };
}

export function memberPayload(source: PayloadSource, user: UserRecord, joinedAt: number) {
  return {
    user: userPayload(user),
    nick: null,
    avatar: null,
    roles: user.id === source.botUserId ? [source.botRoleId] : [],
    joined_at: iso(joinedAt),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function channelPayload(source: PayloadSource, channel: ChannelRecord) {
  if (channel.type === ChannelKind.DM) {
    return {
      id: channel.id,
      type: channel.type,
      last_message_id: null,
      flags: 0,
      recipients: channel.recipientId ? [userPayload(source.user(channel.recipientId))] : [],
    };
  }
  const common = {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guildId,
    name: channel.name,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  };
  if (channel.type === ChannelKind.PublicThread) {
    return {
      ...common,
      parent_id: channel.parentId,
      owner_id: channel.ownerId,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      thread_metadata: {
        archived: false,
        auto_archive_duration: channel.autoArchiveMinutes ?? 1440,
        archive_timestamp: iso(channel.createdAt),
        locked: false,
        create_timestamp: iso(channel.createdAt),
      },
    };
  }
  return { ...common, position: 0, permission_overwrites: [], parent_id: null, nsfw: false, topic: null };
}

/** A message shows the components its latest create or edit body set (an edit without them keeps them). */
export function componentsOf(message: MessageRecord): unknown[] {
  const body = message.bodies.findLast((candidate) => candidate.components !== undefined);
  return Array.isArray(body?.components) ? body.components : [];
}

export function messagePayload(
  source: PayloadSource,
  message: MessageRecord,
  options: { gateway?: boolean } = {},
): Record<string, unknown> {
  const channel = source.channel(message.channelId);
  const referenced = message.referenceId ? source.message(message.referenceId) : undefined;
  const thread = message.threadId ? source.channel(message.threadId) : undefined;
  return {
    id: message.id,
    channel_id: message.channelId,
    ...(message.guildId ? { guild_id: message.guildId } : {}),
    ...(message.webhook
      ? {
          author: webhookAuthorPayload(message.webhook),
          webhook_id: message.webhook.id,
          application_id: source.applicationId,
        }
      : {
          author: userPayload(source.user(message.authorId)),
          ...(message.guildId && options.gateway
            ? {
                member: {
                  ...memberPayload(source, source.user(message.authorId), message.createdAt),
                  user: undefined,
                },
              }
            : {}),
        }),
    content: message.content,
    timestamp: iso(message.createdAt),
    edited_timestamp: message.editedAt === undefined ? null : iso(message.editedAt),
    tts: false,
    mention_everyone: false,
    mentions: message.mentionIds.map((id) => userPayload(source.user(id))),
    mention_roles: [...message.mentionRoleIds],
    attachments: (message.attachments ?? []).map((file) => source.cdn.payload(file, options)),
    embeds: [],
    components: componentsOf(message),
    pinned: false,
    type: message.type,
    flags: message.flags,
    ...(referenced
      ? {
          message_reference: {
            type: 0,
            message_id: referenced.id,
            channel_id: referenced.channelId,
            guild_id: referenced.guildId,
          },
          referenced_message: messagePayload(source, referenced),
        }
      : {}),
    ...(thread ? { thread: channelPayload(source, thread) } : {}),
    ...(message.interaction
      ? {
          webhook_id: source.applicationId,
          application_id: source.applicationId,
          interaction_metadata: {
            id: message.interaction.id,
            type: 2,
            name: message.interaction.name,
            user: userPayload(source.user(message.interaction.userId)),
            authorizing_integration_owners: {},
          },
        }
      : {}),
    ...(options.gateway && channel ? { channel_type: channel.type } : {}),
  };
}

export function guildCreatePayload(
  source: PayloadSource,
  guild: { id: string; name: string; ownerId: string; createdAt: number },
  channels: readonly ChannelRecord[],
  members: readonly UserRecord[],
) {
  const role = (id: string, name: string, managed: boolean, botId?: string) => ({
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: managed ? 1 : 0,
    permissions: ALL_PERMISSIONS,
    managed,
    mentionable: false,
    flags: 0,
    ...(botId ? { tags: { bot_id: botId } } : {}),
  });
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    features: [],
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: "en-US",
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    application_id: null,
    roles: [
      role(guild.id, "@everyone", false),
      role(source.botRoleId, "Switchboard", true, source.botUserId),
    ],
    emojis: [],
    stickers: [],
    joined_at: iso(guild.createdAt),
    large: false,
    unavailable: false,
    member_count: members.length,
    members: members.map((member) => memberPayload(source, member, guild.createdAt)),
    channels: channels
      .filter((channel) => channel.type === ChannelKind.GuildText)
      .map((c) => channelPayload(source, c)),
    threads: channels
      .filter((channel) => channel.type === ChannelKind.PublicThread)
      .map((c) => channelPayload(source, c)),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** Fields GUILD_CREATE carries that `GET /guilds/{id}` leaves out. */
const GATEWAY_ONLY_GUILD_FIELDS = [
  "joined_at",
  "large",
  "unavailable",
  "member_count",
  "members",
  "channels",
  "threads",
  "presences",
  "voice_states",
  "stage_instances",
  "guild_scheduled_events",
  "soundboard_sounds",
] as const;

/** A guild as `GET /guilds/{id}?with_counts=true` answers: no channels or members, approximate counts. */
export function guildRestPayload(guildCreate: ReturnType<typeof guildCreatePayload>) {
  const rest: Record<string, unknown> = { ...guildCreate };
  for (const field of GATEWAY_ONLY_GUILD_FIELDS) delete rest[field];
  return {
    ...rest,
    approximate_member_count: guildCreate.member_count,
    approximate_presence_count: 0,
  };
}
