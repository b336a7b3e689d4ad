import { streamingConfigFields } from "@switchboard/core/adapter";
import { z } from "zod";

const MXID = /^@[^:\s]+:\S+$/;

/**
 * The `matrix:` section of switchboard.yaml. Secrets are plain fields; the CLI fills them from
 * SWITCHBOARD_MATRIX_* environment variables. Every option is documented in the package README.
 */
export const matrixAdapterConfigSchema = z
  .object({
    homeserverUrl: z
      .url({ protocol: /^https?$/ })
      .describe("Client-server API base URL, e.g. https://matrix.example.org."),
    accessToken: z
      .string()
      .min(1)
      .optional()
      .describe("The bot account's access token. Either this, or userId + password."),
    userId: z
      .string()
      .regex(MXID, "must be a full Matrix ID like @bot:example.org")
      .optional()
      .describe("The bot's MXID. Needed for password login; checked against the token's owner when given."),
    password: z
      .string()
      .min(1)
      .optional()
      .describe("Logs in once with this password; the token is then kept in the store."),
    deviceName: z
      .string()
      .min(1)
      .default("Switchboard")
      .describe("Device name shown in the account's session list after a password login."),
    displayName: z
      .string()
      .min(1)
      .optional()
      .describe("The name users write to address the bot; defaults to the account's profile display name."),
    msgtype: z
      .enum(["m.notice", "m.text"])
      .default("m.notice")
      .describe(
        "How answers are sent. `m.notice` is Matrix's convention for automated messages: bots (this one included) never answer notices, so two bots in one room cannot talk to each other forever.",
      ),
    replyMode: z
      .enum(["thread", "reply"])
      .default("thread")
      .describe(
        "`thread`: a top-level mention starts a thread rooted at it. `reply`: answers are plain replies.",
      ),
    autoJoin: z
      .boolean()
      .default(true)
      .describe("Join rooms the bot is invited to (subject to `inviters` / `inviteServers`)."),
    inviters: z
      .array(z.string().regex(MXID, "must be a full Matrix ID like @alice:example.org"))
      .default([])
      .describe("MXIDs whose invites are accepted."),
    inviteServers: z
      .array(z.string().min(1))
      .default([])
      .describe("Homeservers whose users' invites are accepted; `*` accepts any."),
    encryptedRooms: z
      .enum(["explain", "decline"])
      .default("explain")
      .describe(
        "Invited to an end-to-end encrypted room while encryption is not active (off, or the native binding missing): `explain` joins and posts one plain notice saying how to reach the bot; `decline` refuses the invite with that reason.",
      ),
    directRooms: z
      .enum(["marked", "marked-or-two-members"])
      .default("marked")
      .describe(
        "Which rooms are direct chats (answered with plain replies, one conversation per room): `marked` — rooms in the bot's `m.direct` account data, which is set from the invite's `is_direct` (how Matrix clients create DMs); `marked-or-two-members` — also a room of the bot and one other person, decided when the bot first sees the room and never changed after.",
      ),
    readReceipts: z
      .boolean()
      .default(true)
      .describe("Send a read receipt for each message the bot answers (people see the bot has read it)."),
    /**
     * End-to-end encryption on the WASM crypto. `true` / `false`, or the settings below (an object
     * turns it on unless `enabled: false`).
     */
    encryption: z
      .union([
        z.boolean(),
        z
          .object({
            enabled: z.boolean().default(true).describe("Turn end-to-end encryption on."),
            trust: z
              .enum(["allow-unverified", "verified-only"])
              .default("allow-unverified")
              .describe(
                "allow-unverified: room keys go to every device of a room's members and messages from any device are read. verified-only: only devices their owner has cross-signed get keys, and only their messages are read.",
              ),
            storePassphrase: z
              .string()
              .min(8)
              .optional()
              .describe(
                "Encrypts the bot's crypto state (its keys and sessions) inside the store. Losing it loses the device: keep it with the store's backups. Cannot be added or changed for a device that already has state.",
              ),
          })
          .strict(),
      ])
      .default(false)
      .transform((value) =>
        typeof value === "boolean"
          ? { enabled: value, trust: "allow-unverified" as const, storePassphrase: undefined }
          : value,
      )
      .describe("End-to-end encryption (Element encrypts new DMs and private rooms by default)."),
    /** No longer used: the crypto state lives in the store. Accepted so that older files still load. */
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe("Unused (the crypto state lives in the store); accepted for older files."),
    maxMessageLength: z
      .number()
      .int()
      .min(500)
      .max(16_000)
      .default(4_000)
      .describe(
        "Longest markdown chunk per event; the HTML + JSON event stays far below Matrix's 65,536 bytes.",
      ),
    /**
     * `streaming`, `streamEditIntervalMs`, `progress`: answers grow by `m.replace` edits; every
     * edit is an event, and homeservers limit how many a user sends, so edits are spaced widely.
     */
    ...streamingConfigFields(2_000),
    syncTimeoutMs: z
      .number()
      .int()
      .min(0)
      .max(120_000)
      .default(30_000)
      .describe("How long one `/sync` long-poll waits for new events."),
  })
  .refine(
    (config) =>
      config.accessToken !== undefined || (config.userId !== undefined && config.password !== undefined),
    {
      message: "set matrix.accessToken, or matrix.userId and matrix.password to log in",
    },
  );

/** The options as written in the config file (defaults optional). */
export type MatrixAdapterConfig = z.input<typeof matrixAdapterConfigSchema>;
/** The options after validation, every default filled in. */
export type ResolvedMatrixConfig = z.output<typeof matrixAdapterConfigSchema>;
