import {
  BOT_PERMISSIONS,
  botPermissions,
  describeCommandScope,
  discordInviteUrl,
  inspectDiscordBot,
  privilegedIntents,
  registerSlashCommandsOverRest,
} from "@switchboard/discord/setup";
import { SetupStopped, secretFromEnvOrAsked } from "./asker.ts";
import { type PlatformStep, type StepContext, untilAccepted } from "./platform-step.ts";

const DISCORD_API = "https://discord.com/api";

/**
 * Discord: what to switch on in the Developer Portal, the token and intent checked live, the invite
 * link, and the slash commands registered once the files are written.
 */
export async function setupDiscord({ asker, env, commands }: StepContext): Promise<PlatformStep> {
  const apiUrl = await asker.text("discord.apiUrl", "Discord API URL", { initial: DISCORD_API, quiet: true });
  asker.show(
    "Create the Discord application",
    [
      "1. https://discord.com/developers/applications → New Application, name it.",
      "2. Bot → Reset Token, and copy the token.",
      `3. Bot → Privileged Gateway Intents: switch on ${privilegedIntents().join(", ")} and save.`,
    ].join("\n"),
  );
  let token = "";
  const facts = await untilAccepted(asker, "the Discord token", async () => {
    token = await secretFromEnvOrAsked(asker, env, "SWITCHBOARD_DISCORD_TOKEN", "Bot token");
    const found = await inspectDiscordBot(token, apiUrl);
    if (!found.messageContent)
      throw new Error(
        `the ${privilegedIntents().join(", ")} is off for ${found.applicationName}: Bot → Privileged Gateway Intents, switch it on and save`,
      );
    return found;
  });
  asker.ok(
    `Discord: the bot is ${facts.botName} (application ${facts.applicationName}); ${privilegedIntents().join(", ")} is on`,
  );
  asker.show("Invite the bot to your server", inviteText(facts.applicationId));
  const guild = await asker.text(
    "discord.guild",
    "Server id for the slash commands (instant there; empty: global, which Discord may take a while to show)",
    { optional: true },
  );
  if (guild !== "" && !/^\d{5,25}$/.test(guild))
    throw new SetupStopped(`a Discord server id is digits only (got ${guild})`);
  const places = { guildIds: guild === "" ? [] : [guild], global: guild === "" };
  return {
    section: {
      ...(guild === "" ? { globalCommands: true } : { commandGuildIds: [guild] }),
      ...(apiUrl === DISCORD_API ? {} : { apiUrl }),
    },
    secrets: { SWITCHBOARD_DISCORD_TOKEN: token },
    afterWrite: async () => {
      try {
        const count = await registerSlashCommandsOverRest(
          token,
          apiUrl,
          facts.applicationId,
          places,
          commands,
        );
        asker.ok(
          `Discord: ${count} slash commands registered in ${describeCommandScope(places.global ? undefined : guild)}`,
        );
        return true;
      } catch (error) {
        asker.problem(`Discord: ${(error as Error).message}`);
        return false;
      }
    },
  };
}

/** The invite link and what each permission is for. */
export function inviteText(applicationId: string): string {
  return [
    discordInviteUrl(applicationId),
    `Scopes: bot applications.commands. Permissions (${botPermissions()}):`,
    ...BOT_PERMISSIONS.map(({ name, why }) => `  ${name}: ${why}`),
  ].join("\n");
}
