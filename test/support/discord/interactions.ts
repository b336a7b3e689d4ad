import { DiscordApiError, unknownInteraction, unknownMessage, unknownWebhook } from "./api-error.ts";
import { channelPayload, componentsOf, memberPayload, messagePayload, userPayload } from "./payloads.ts";
import { ChannelKind, type InteractionRecord, MessageKind, type MessageRecord } from "./records.ts";
import { nextSnowflake } from "./snowflakes.ts";
import type { DiscordWorld } from "./world.ts";

const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;
/** Discord's deadline for the first response to an interaction. */
export const ACKNOWLEDGE_WITHIN_MS = 3000;
const CallbackType = {
  ChannelMessageWithSource: 4,
  DeferredChannelMessageWithSource: 5,
  DeferredUpdateMessage: 6,
  UpdateMessage: 7,
} as const;
const InteractionType = { ApplicationCommand: 2, MessageComponent: 3 } as const;
const ComponentType = { ActionRow: 1, Button: 2 } as const;

/** Slash commands: INTERACTION_CREATE out, callback / webhook edits and follow-ups in. */
export class InteractionDesk {
  readonly #world: DiscordWorld;
  readonly interactions = new Map<string, InteractionRecord>();
  /** Registered command sets by scope: `global` or a guild id. */
  readonly commands = new Map<string, Record<string, unknown>[]>();

  constructor(world: DiscordWorld) {
    this.#world = world;
  }

  /** A person uses a slash command; the gateway delivers INTERACTION_CREATE. */
  use(input: {
    name: string;
    channelId: string;
    userId: string;
    options?: Record<string, string>;
  }): InteractionRecord {
    const world = this.#world;
    const channel = world.requireChannel(input.channelId);
    const scope = channel.guildId ?? "global";
    const registered = [...(this.commands.get(scope) ?? []), ...(this.commands.get("global") ?? [])];
    const command = registered.find((candidate) => candidate.name === input.name);
    if (!command)
      throw new Error(`/${input.name} is not registered for ${scope}; a Discord client would not offer it`);
    const interaction: InteractionRecord = {
      id: nextSnowflake(),
      token: `interaction-token-${nextSnowflake()}`,
      name: input.name,
      channelId: channel.id,
      ...(channel.guildId ? { guildId: channel.guildId } : {}),
      userId: input.userId,
      options: Object.entries(input.options ?? {}).map(([name, value]) => ({ name, value })),
      createdAt: Date.now(),
      followUpIds: [],
    };
    this.interactions.set(interaction.id, interaction);
    const user = world.user(input.userId);
    world.dispatch("INTERACTION_CREATE", {
      id: interaction.id,
      application_id: world.applicationId,
      type: 2,
      token: interaction.token,
      version: 1,
      data: {
        id: command.id,
        name: input.name,
        type: 1,
        ...(channel.guildId ? { guild_id: channel.guildId } : {}),
        ...(interaction.options.length > 0
          ? { options: interaction.options.map((o) => ({ ...o, type: 3 })) }
          : {}),
      },
      channel_id: channel.id,
      channel: channelPayload(world, channel),
      ...(channel.guildId
        ? {
            guild_id: channel.guildId,
            guild_locale: "en-US",
            member: { ...memberPayload(world, user, interaction.createdAt), permissions: "2251799813685247" },
          }
        : { user: userPayload(user) }),
      app_permissions: "2251799813685247",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: channel.guildId ? { "0": channel.guildId } : { "1": user.id },
      context: channel.type === ChannelKind.DM ? 1 : 0,
      attachment_size_limit: 10485760,
    });
    return interaction;
  }

  /** A person presses a button on a message; the gateway delivers a MESSAGE_COMPONENT interaction. */
  press(input: { messageId: string; customId: string; userId: string }): InteractionRecord {
    const world = this.#world;
    const message = world.message(input.messageId);
    if (!message) throw new Error(`no message ${input.messageId} to press a button on`);
    const buttons = (componentsOf(message) as { components?: { custom_id?: string }[] }[]).flatMap(
      (row) => row.components ?? [],
    );
    if (!buttons.some((button) => button.custom_id === input.customId))
      throw new Error(
        `message ${message.id} shows no button ${input.customId}; a Discord client could not press it`,
      );
    const channel = world.requireChannel(message.channelId);
    const user = world.user(input.userId);
    const interaction: InteractionRecord = {
      id: nextSnowflake(),
      token: `interaction-token-${nextSnowflake()}`,
      name: "",
      channelId: channel.id,
      ...(channel.guildId ? { guildId: channel.guildId } : {}),
      userId: input.userId,
      options: [],
      createdAt: Date.now(),
      followUpIds: [],
      messageId: message.id,
      customId: input.customId,
    };
    this.interactions.set(interaction.id, interaction);
    world.dispatch("INTERACTION_CREATE", {
      id: interaction.id,
      application_id: world.applicationId,
      type: InteractionType.MessageComponent,
      token: interaction.token,
      version: 1,
      data: { custom_id: input.customId, component_type: ComponentType.Button },
      message: messagePayload(world, message),
      channel_id: channel.id,
      channel: channelPayload(world, channel),
      ...(channel.guildId
        ? {
            guild_id: channel.guildId,
            guild_locale: "en-US",
            member: { ...memberPayload(world, user, interaction.createdAt), permissions: "2251799813685247" },
          }
        : { user: userPayload(user) }),
      app_permissions: "2251799813685247",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: channel.guildId ? { "0": channel.guildId } : { "1": user.id },
      context: channel.type === ChannelKind.DM ? 1 : 0,
      attachment_size_limit: 10485760,
    });
    return interaction;
  }

  /** UPDATE_MESSAGE / DEFERRED_UPDATE_MESSAGE: a component interaction changes (or just acknowledges) its message. */
  #updateMessage(interaction: InteractionRecord, type: number, data: Record<string, unknown>) {
    interaction.callback = { at: Date.now(), type, flags: 0 };
    if (type === CallbackType.DeferredUpdateMessage) return undefined;
    const message = interaction.messageId ? this.#world.messages.get(interaction.messageId) : undefined;
    if (!message) throw unknownMessage();
    if (data.content !== undefined) message.content = this.#world.validContent(data);
    message.editedAt = Date.now();
    message.bodies.push(data);
    this.#announce("MESSAGE_UPDATE", message);
    return undefined;
  }

  /** POST /interactions/{id}/{token}/callback */
  callback(id: string, token: string, body: Record<string, unknown>, withResponse: boolean) {
    const interaction = this.interactions.get(id);
    if (!interaction || interaction.token !== token) throw unknownInteraction();
    if (Date.now() - interaction.createdAt > ACKNOWLEDGE_WITHIN_MS) throw unknownInteraction();
    if (interaction.callback)
      throw new DiscordApiError(400, 40060, "Interaction has already been acknowledged.");
    const type = Number(body.type);
    const data = (body.data ?? {}) as Record<string, unknown>;
    const flags = Number(data.flags ?? 0);
    if (type === CallbackType.UpdateMessage || type === CallbackType.DeferredUpdateMessage) {
      if (!interaction.messageId)
        throw new DiscordApiError(400, 50035, "Only component interactions can update their message");
      return this.#updateMessage(interaction, type, data);
    }
    if (
      type !== CallbackType.DeferredChannelMessageWithSource &&
      type !== CallbackType.ChannelMessageWithSource
    ) {
      throw new DiscordApiError(400, 50035, `callback type ${type} is not supported by the stand-in`);
    }
    const deferred = type === CallbackType.DeferredChannelMessageWithSource;
    const message = this.#world.addInteractionMessage({
      channelId: interaction.channelId,
      authorId: this.#world.bot.id,
      content: deferred ? "" : this.#world.validContent(data),
      type: MessageKind.ChatInputCommand,
      flags: (flags & EPHEMERAL) | (deferred ? LOADING : 0),
      interaction: { id: interaction.id, name: interaction.name, userId: interaction.userId },
      bodies: [body],
    });
    interaction.callback = { at: Date.now(), type, flags };
    interaction.originalMessageId = message.id;
    this.#announce("MESSAGE_CREATE", message);
    if (!withResponse) return undefined;
    return {
      interaction: {
        id: interaction.id,
        type: 2,
        response_message_id: message.id,
        response_message_loading: deferred,
        response_message_ephemeral: (flags & EPHEMERAL) !== 0,
      },
      resource: { type, ...(deferred ? {} : { message: messagePayload(this.#world, message) }) },
    };
  }

  /** PATCH /webhooks/{application}/{token}/messages/{@original | id of a follow-up} */
  editMessage(applicationId: string, token: string, messageId: string, body: Record<string, unknown>) {
    const interaction = this.#byToken(applicationId, token);
    const id = messageId === "@original" ? interaction.originalMessageId : messageId;
    // An interaction's webhook edits only the messages it posted: its reply and its follow-ups.
    const own =
      id !== undefined && (id === interaction.originalMessageId || interaction.followUpIds.includes(id));
    const message = own ? this.#world.messages.get(id) : undefined;
    if (!message) throw unknownMessage();
    message.content = this.#world.validContent(body);
    message.flags &= ~LOADING;
    message.editedAt = Date.now();
    message.bodies.push(body);
    this.#announce("MESSAGE_UPDATE", message);
    return messagePayload(this.#world, message);
  }

  /** POST /webhooks/{application}/{token}?wait=true */
  followUp(applicationId: string, token: string, body: Record<string, unknown>) {
    const interaction = this.#byToken(applicationId, token);
    if (!interaction.callback) throw unknownWebhook();
    const message = this.#world.addInteractionMessage({
      channelId: interaction.channelId,
      authorId: this.#world.bot.id,
      content: this.#world.validContent(body),
      type: MessageKind.ChatInputCommand,
      flags: Number(body.flags ?? 0) & EPHEMERAL,
      interaction: { id: interaction.id, name: interaction.name, userId: interaction.userId },
      bodies: [body],
    });
    interaction.followUpIds.push(message.id);
    this.#announce("MESSAGE_CREATE", message);
    return messagePayload(this.#world, message);
  }

  originalOf(applicationId: string, token: string) {
    const interaction = this.#byToken(applicationId, token);
    const message = interaction.originalMessageId
      ? this.#world.messages.get(interaction.originalMessageId)
      : undefined;
    if (!message) throw unknownMessage();
    return messagePayload(this.#world, message);
  }

  #byToken(applicationId: string, token: string): InteractionRecord {
    const interaction = [...this.interactions.values()].find((candidate) => candidate.token === token);
    if (!interaction || applicationId !== this.#world.applicationId) throw unknownWebhook();
    return interaction;
  }

  /** Ephemeral messages exist only for the person who used the command; the bot's gateway never sees them. */
  #announce(event: string, message: MessageRecord): void {
    if ((message.flags & EPHEMERAL) !== 0) return;
    this.#world.dispatch(event, messagePayload(this.#world, message, { gateway: true }));
  }
}

/** PUT …/commands replaces the whole set for that scope and answers with the stored commands. */
export function registerCommands(
  desk: InteractionDesk,
  applicationId: string,
  scope: string,
  bodies: unknown,
) {
  if (!Array.isArray(bodies)) throw new DiscordApiError(400, 50035, "Invalid Form Body");
  const stored = bodies.map((body: Record<string, unknown>) => ({
    ...body,
    id: nextSnowflake(),
    application_id: applicationId,
    version: nextSnowflake(),
    type: 1,
    default_member_permissions: null,
    nsfw: false,
    ...(scope === "global" ? {} : { guild_id: scope }),
  }));
  desk.commands.set(scope, stored);
  return stored;
}
