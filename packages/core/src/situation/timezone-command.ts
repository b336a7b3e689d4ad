import type { Command } from "../commands/command.ts";
import type { UserTimeZones } from "./user-time-zones.ts";

/** `/timezone`: shows the person's zone; `/timezone Europe/Berlin` sets it; `/timezone reset` goes back to the profile's or the default. */
export function timezoneCommand(zones: UserTimeZones): Command {
  return {
    name: "timezone",
    usage: "[IANA name like Europe/Berlin | reset]",
    summary: "show or set your time zone (for reminders and the date agents see)",
    async run({ args, message, prefix }) {
      const platform = message.conversation.platform;
      const userId = message.author.id;
      const wanted = args.trim();
      if (wanted === "") {
        const own = await zones.setting(platform, userId);
        const zone = await zones.zoneOf(platform, userId);
        return {
          reply: own
            ? `Your time zone is ${zone} (your setting). ${prefix}timezone reset goes back to your profile's or the default.`
            : `Your time zone is ${zone} (${zone === zones.defaultZone ? "the default" : "from your profile"}). Set yours with ${prefix}timezone <IANA name>, e.g. ${prefix}timezone Europe/Berlin.`,
        };
      }
      if (wanted.toLowerCase() === "reset") {
        await zones.set(platform, userId, undefined);
        return {
          reply: `Your time zone setting is cleared; it is now ${await zones.zoneOf(platform, userId)}.`,
        };
      }
      let zone: string;
      try {
        zone = new Intl.DateTimeFormat("en-US", { timeZone: wanted }).resolvedOptions().timeZone;
      } catch {
        return {
          reply: `"${wanted}" is not a time zone I know. Use an IANA name, e.g. ${prefix}timezone Europe/Berlin or ${prefix}timezone America/New_York.`,
        };
      }
      await zones.set(platform, userId, zone);
      return {
        reply: `Your time zone is now ${zone}. Reminders you ask for and the date agents see follow it.`,
      };
    },
  };
}
