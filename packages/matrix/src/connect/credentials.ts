import type { Logger } from "@switchboard/core/adapter";
import type { ResolvedMatrixConfig } from "../config.ts";
import { MatrixAuthError, MatrixConnectionError } from "../errors.ts";
import type { MatrixSdk } from "../sdk/load-sdk.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import type { KeyValue } from "./key-value.ts";

export interface Credentials {
  readonly accessToken: string;
  readonly userId: string;
  readonly deviceId?: string;
}

type CredentialConfig = Pick<
  ResolvedMatrixConfig,
  "homeserverUrl" | "accessToken" | "userId" | "password" | "deviceName"
>;

function isRejectedToken(error: unknown): boolean {
  const failure = describeRequestFailure(error);
  return (
    failure.status === 401 || failure.errcode === "M_UNKNOWN_TOKEN" || failure.errcode === "M_MISSING_TOKEN"
  );
}

function unreachable(homeserverUrl: string, error: unknown): MatrixConnectionError {
  return new MatrixConnectionError(
    `cannot talk to the Matrix homeserver at ${homeserverUrl} (${describeRequestFailure(error).message}); check matrix.homeserverUrl and the network`,
    { cause: error },
  );
}

async function whoAmI(sdk: MatrixSdk, homeserverUrl: string, accessToken: string): Promise<Credentials> {
  const whoami = await new sdk.MatrixClient(homeserverUrl, accessToken).getWhoAmI();
  return { accessToken, userId: whoami.user_id, ...(whoami.device_id ? { deviceId: whoami.device_id } : {}) };
}

/**
 * The bot's access token and identity. A configured token is used as is. With user id + password
 * the bot logs in once and keeps the token in the store (each login creates a new device on the
 * account), logging in again only when the homeserver no longer accepts the kept token.
 */
export async function obtainCredentials(
  sdk: MatrixSdk,
  config: CredentialConfig,
  tokens: KeyValue | undefined,
  logger: Logger,
): Promise<Credentials> {
  const { homeserverUrl } = config;
  if (config.accessToken !== undefined) {
    let credentials: Credentials;
    try {
      credentials = await whoAmI(sdk, homeserverUrl, config.accessToken);
    } catch (error) {
      if (isRejectedToken(error)) {
        throw new MatrixAuthError(
          `the homeserver at ${homeserverUrl} rejected matrix.accessToken (${describeRequestFailure(error).message}); create a new access token for the bot account`,
          { cause: error },
        );
      }
      throw unreachable(homeserverUrl, error);
    }
    if (config.userId !== undefined && config.userId !== credentials.userId) {
      throw new MatrixAuthError(
        `matrix.accessToken belongs to ${credentials.userId}, not to matrix.userId ${config.userId}`,
      );
    }
    return credentials;
  }

  const { userId, password } = config;
  if (userId === undefined || password === undefined) {
    throw new MatrixAuthError("set matrix.accessToken, or matrix.userId and matrix.password to log in");
  }
  const tokenKey = `access-token:${homeserverUrl}:${userId}`;
  const kept = await tokens?.get(tokenKey);
  if (kept !== undefined) {
    try {
      return await whoAmI(sdk, homeserverUrl, kept);
    } catch (error) {
      if (!isRejectedToken(error)) throw unreachable(homeserverUrl, error);
      logger.warn("the kept Matrix access token was rejected; logging in again", { userId });
      await tokens?.delete(tokenKey);
    }
  }

  let accessToken: string;
  try {
    const client = await new sdk.MatrixAuth(homeserverUrl).passwordLogin(userId, password, config.deviceName);
    accessToken = client.accessToken;
  } catch (error) {
    const failure = describeRequestFailure(error);
    if (failure.status === 403 || failure.errcode === "M_FORBIDDEN" || failure.status === 401) {
      throw new MatrixAuthError(
        `the homeserver at ${homeserverUrl} refused the login for ${userId}: check matrix.userId and matrix.password`,
        {
          cause: error,
        },
      );
    }
    throw unreachable(homeserverUrl, error);
  }
  const credentials = await whoAmI(sdk, homeserverUrl, accessToken);
  if (tokens) await tokens.set(tokenKey, accessToken);
  else
    logger.warn("no store given: the Matrix login is not kept and every start creates a new device", {
      userId,
    });
  logger.info("logged in to Matrix with the password", {
    userId: credentials.userId,
    deviceId: credentials.deviceId,
    tokenKept: tokens !== undefined,
  });
  return credentials;
}
