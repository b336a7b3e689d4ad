import { z } from "zod";

/** Who may talk to the bot in direct messages. */
export const DM_ACCESS_MODES = ["open", "allowlist", "pairing", "disabled"] as const;
export type DmAccessMode = (typeof DM_ACCESS_MODES)[number];
/** Who may talk to the bot in channels, rooms and threads. */
export const GROUP_ACCESS_MODES = ["open", "allowlist"] as const;
export type GroupAccessMode = (typeof GROUP_ACCESS_MODES)[number];

const ids = z.array(z.string().trim().min(1, "an id in an access list is empty"));

/** One platform's access policy: `access.slack`, `access.discord`, `access.matrix`. */
export const platformAccessSchema = z
  .strictObject({
    dm: z
      .enum(DM_ACCESS_MODES)
      .default("open")
      .describe(
        "Direct messages: `open` answers anyone; `allowlist` only `users`; `pairing` answers `users` and people an admin approved, and gives anyone else a one-time code to pass to an admin; `disabled` answers none.",
      ),
    groups: z
      .enum(GROUP_ACCESS_MODES)
      .default("open")
      .describe(
        "Channels, rooms and threads: `open` answers wherever the bot is addressed; `allowlist` only in listed `places`/`spaces` and (when `users` is set) only listed users.",
      ),
    users: ids
      .default([])
      .describe(
        "Platform user ids always let in (Slack `U…`, Discord user ids, Matrix MXIDs). Admins (`requests.admins`) are always let in.",
      ),
    places: ids
      .default([])
      .describe(
        "Channel or room ids where `groups: allowlist` answers (Slack channel `C…`, Discord channel id — its threads included, Matrix room id).",
      ),
    spaces: ids
      .default([])
      .describe(
        "Whole workspaces or servers where `groups: allowlist` answers: Slack team ids (`T…`), Discord server (guild) ids, Matrix homeserver names of the sender (`example.org`).",
      ),
  })
  .superRefine((policy, context) => {
    if (policy.dm === "allowlist" && policy.users.length === 0) {
      context.addIssue({
        code: "custom",
        path: ["users"],
        message: "`dm: allowlist` needs at least one user id in `users` (or use `dm: disabled`)",
      });
    }
    if (
      policy.groups === "allowlist" &&
      policy.places.length === 0 &&
      policy.spaces.length === 0 &&
      policy.users.length === 0
    ) {
      context.addIssue({
        code: "custom",
        path: ["groups"],
        message: "`groups: allowlist` needs at least one of `places`, `spaces` or `users`",
      });
    }
  });

export type PlatformAccess = z.output<typeof platformAccessSchema>;

export const accessConfigSchema = z.strictObject({
  slack: platformAccessSchema.prefault({}).describe("Who may talk to the bot on Slack."),
  discord: platformAccessSchema.prefault({}).describe("Who may talk to the bot on Discord."),
  matrix: platformAccessSchema.prefault({}).describe("Who may talk to the bot on Matrix."),
  pairingCodeMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60)
    .describe("How long a pairing code stays valid; after it, the person's next message gets a new one."),
  pairingReminderMinutes: z
    .number()
    .int()
    .min(1)
    .default(10)
    .describe(
      "A person waiting for approval who writes again is reminded of their code at most this often; other messages get no answer.",
    ),
});

export type AccessConfig = z.output<typeof accessConfigSchema>;
export type AccessConfigInput = z.input<typeof accessConfigSchema>;
