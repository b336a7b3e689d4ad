import { SetupStopped } from "./asker.ts";
import { passwordLogin, setDisplayName, whoAmI } from "./matrix-login.ts";
import { type PlatformStep, type StepContext, untilAccepted } from "./platform-step.ts";

/**
 * Matrix: one password login for a token and device (the password goes nowhere else), `/whoami`,
 * encryption on or off, the display name.
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
  const encryption = await asker.confirm(
    "matrix.e2ee",
    "Turn on end-to-end encryption? (Element encrypts new DMs and private rooms by default)",
    true,
  );
  const displayName = await asker.text("matrix.displayName", "Display name people see", {
    initial: "Switchboard",
  });
  await setDisplayName(homeserverUrl, login.accessToken, who.userId, displayName);
  asker.ok(`Matrix: display name set to ${displayName}`);
  return {
    section: { homeserverUrl, userId: who.userId, encryption },
    secrets: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: login.accessToken },
    afterWrite: async () => {
      asker.show(
        "Invite the bot",
        `Invite ${who.userId} to a room (or start a DM with it); it joins and answers when mentioned. ` +
          "People of its own homeserver may invite it; for others, list them under inviters: in matrix:.",
      );
      return true;
    },
  };
}
