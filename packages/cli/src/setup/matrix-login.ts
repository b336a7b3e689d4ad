/**
 * The four Matrix client-server calls setup makes, written against the spec with fetch: the
 * adapter's SDK is built around a running client (sync, crypto store), while setup needs one
 * password login, `/whoami` and a display name — nothing a library would simplify.
 */

export interface MatrixLogin {
  readonly userId: string;
  readonly accessToken: string;
  readonly deviceId: string;
}

export class MatrixSetupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MatrixSetupError";
  }
}

async function call<T>(
  homeserverUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const url = new URL(path, homeserverUrl.endsWith("/") ? homeserverUrl : `${homeserverUrl}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(20_000),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new MatrixSetupError(`cannot reach the homeserver at ${homeserverUrl} (${cause})`, {
      cause: error,
    });
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    throw new MatrixSetupError(
      `${homeserverUrl} answered ${method} ${path} with HTTP ${response.status} and no Matrix JSON: is this the client-server API URL?`,
    );
  }
  if (!response.ok) {
    const code = typeof body.errcode === "string" ? body.errcode : `HTTP ${response.status}`;
    const error = typeof body.error === "string" ? `: ${body.error}` : "";
    throw new MatrixSetupError(`the homeserver refused ${method} ${path} (${code}${error})`);
  }
  return body as T;
}

/** Logs in once with the password: a new device, its access token. The password goes nowhere else. */
export async function passwordLogin(
  homeserverUrl: string,
  user: string,
  password: string,
  deviceName: string,
): Promise<MatrixLogin> {
  const body = await call<{ user_id?: string; access_token?: string; device_id?: string }>(
    homeserverUrl,
    "POST",
    "_matrix/client/v3/login",
    {
      body: {
        type: "m.login.password",
        identifier: { type: "m.id.user", user },
        password,
        initial_device_display_name: deviceName,
      },
    },
  );
  if (!body.user_id || !body.access_token || !body.device_id)
    throw new MatrixSetupError("the homeserver's login answer lacks user_id, access_token or device_id");
  return { userId: body.user_id, accessToken: body.access_token, deviceId: body.device_id };
}

/** Whose token this is, and its device. */
export async function whoAmI(
  homeserverUrl: string,
  accessToken: string,
): Promise<{ userId: string; deviceId?: string }> {
  const body = await call<{ user_id?: string; device_id?: string }>(
    homeserverUrl,
    "GET",
    "_matrix/client/v3/account/whoami",
    { token: accessToken },
  );
  if (!body.user_id) throw new MatrixSetupError("the homeserver's /whoami answer lacks user_id");
  return { userId: body.user_id, ...(body.device_id ? { deviceId: body.device_id } : {}) };
}

export async function setDisplayName(
  homeserverUrl: string,
  accessToken: string,
  userId: string,
  displayName: string,
): Promise<void> {
  await call(homeserverUrl, "PUT", `_matrix/client/v3/profile/${encodeURIComponent(userId)}/displayname`, {
    token: accessToken,
    body: { displayname: displayName },
  });
}
