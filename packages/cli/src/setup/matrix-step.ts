import { checkEncryptionSupport } from "@switchboard/matrix/setup";
import { type Asker, SetupStopped } from "./asker.ts";
import { passwordLogin, setDisplayName, whoAmI } from "./matrix-login.ts";
import { type PlatformStep, type StepContext, untilAccepted } from "./platform-step.ts";

/**
 * Matrix: one password login for a token and device (the password goes nowhere else), `/whoami`,
 * encryption offered when it can run here (on by default) and left off with the reason when not,
 * the display name.
 */
export async function setupMatrix({ asker, env }: StepContext): Promise<PlatformStep> {
  const homeserverUrl = (await asker.text("matrix.homeserver", "Homeserver URL (https://…)")).replace(
    /\/+$/,
    "",
  );
  const user = await asker.text("matrix.user", "The bot account (user name or @user:server)");
  const login = await untilAccepted(asker, "the Matrix login", async () => {
    const kept = env.SWITCHBOARD_MATRIX_ACCESS_TOKEN?.trim();
    if (
      kept &&
      (!asker.interactive ||
        (await asker.confirm(
          "env.SWITCHBOARD_MATRIX_ACCESS_TOKEN",
          "Use SWITCHBOARD_MATRIX_ACCESS_TOKEN from the environment?",
          true,
        )))
    ) {
      const who = await whoAmI(homeserverUrl, kept);
      return { userId: who.userId, accessToken: kept, deviceId: who.deviceId ?? "" };
    }
    const password = await asker.secret(
      "SWITCHBOARD_MATRIX_PASSWORD",
      "Password (used once to log in; never stored)",
    );
    return passwordLogin(homeserverUrl, user, password, "Switchboard");
  });
  const who = await whoAmI(homeserverUrl, login.accessToken);
  if (who.userId !== login.userId)
    throw new SetupStopped(`the token belongs to ${who.userId}, not to ${login.userId}`);
  asker.ok(
    `Matrix: logged in as ${who.userId}${who.deviceId ? `, device ${who.deviceId}` : ""} (/whoami agrees; the password is not stored)`,
  );
  const encryption = await encryptionStep(asker, {
    homeserverUrl,
    accessToken: login.accessToken,
    userId: who.userId,
    deviceId: who.deviceId ?? login.deviceId,
  });
  const displayName = await asker.text("matrix.displayName", "Display name people see", {
    initial: "Switchboard",
  });
  await setDisplayName(homeserverUrl, login.accessToken, who.userId, displayName);
  asker.ok(`Matrix: display name set to ${displayName}`);
  return {
    section: { homeserverUrl, userId: who.userId, encryption: encryption.on },
    secrets: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: login.accessToken },
    afterWrite: async () => {
      if (encryption.refused !== undefined) asker.problem(encryption.refused);
      asker.show(
        "Invite the bot",
        `Invite ${who.userId} to a room (or start a DM with it); it joins and answers when mentioned. ` +
          "People of its own homeserver may invite it; for others, list them under inviters: in matrix:.",
      );
      return encryption.refused === undefined;
    },
  };
}

/**
 * Encryption is offered only when it can run (the WASM crypto starts here, the homeserver takes
 * device keys), and then on by default: Element encrypts new DMs and private rooms, and a bot
 * without encryption cannot read them. When it cannot run, one line says why and it stays off;
 * a script that asked for it (--e2ee) is told it did not get it.
 */
async function encryptionStep(
  asker: Asker,
  check: Parameters<typeof checkEncryptionSupport>[0],
): Promise<{ on: boolean; refused?: string }> {
  const support = await checkEncryptionSupport(check);
  if (support.available) {
    asker.ok(`Matrix: end-to-end encryption can run (${support.detail})`);
    const on = await asker.confirm(
      "matrix.e2ee",
      "Turn on end-to-end encryption? (Element encrypts new DMs and private rooms by default)",
      true,
    );
    return { on };
  }
  asker.warn(`Matrix: end-to-end encryption stays off: ${support.reason}`);
  const asked = !asker.interactive && (await asker.confirm("matrix.e2ee", "", false));
  return asked ? { on: false, refused: `--e2ee: encryption cannot run (${support.reason})` } : { on: false };
}
