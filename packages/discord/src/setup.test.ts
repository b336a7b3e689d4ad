/** The invite link asks for exactly the named permissions, as one integer, and both scopes. */
import { PermissionFlagsBits, PermissionsBitField } from "discord.js";
import { describe, expect, it } from "vitest";
import { BOT_PERMISSIONS, botPermissions, discordInviteUrl, privilegedIntents } from "./setup.ts";

describe("the Discord invite", () => {
  it("computes the permission integer from the named permissions", () => {
    const named =
      PermissionFlagsBits.ViewChannel |
      PermissionFlagsBits.SendMessages |
      PermissionFlagsBits.ReadMessageHistory |
      PermissionFlagsBits.CreatePublicThreads |
      PermissionFlagsBits.SendMessagesInThreads |
      PermissionFlagsBits.AttachFiles;
    expect(botPermissions()).toBe(named);
    expect(botPermissions()).toBe(309_237_746_688n);
    // Nothing beyond them: no Administrator, no Manage…, no Mention Everyone.
    expect(new PermissionsBitField(botPermissions()).toArray().sort()).toEqual(
      BOT_PERMISSIONS.map(({ name }) => name).sort(),
    );
  });

  it("links with the bot and applications.commands scopes and the application id", () => {
    const url = new URL(discordInviteUrl("123456789012345678"));
    expect(`${url.origin}${url.pathname}`).toBe("https://discord.com/oauth2/authorize");
    expect(url.searchParams.get("client_id")).toBe("123456789012345678");
    expect(url.searchParams.get("scope")).toBe("bot applications.commands");
    expect(url.searchParams.get("permissions")).toBe("309237746688");
  });

  it("names the privileged intent the bot connects with", () => {
    expect(privilegedIntents()).toEqual(["MESSAGE CONTENT INTENT"]);
  });
});
