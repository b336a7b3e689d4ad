/**
 * What an operator's setup needs from the Matrix adapter without starting it: whether end-to-end
 * encryption can run for this bot — the WASM crypto loads and a machine initialises here, and the
 * homeserver takes device keys. A subpath of its own, so the package root stays cheap to load; the
 * WASM (about 8 MB) is loaded only when the check runs.
 */
import { loadWasmCrypto } from "./sdk/load-sdk.ts";

/** Whether the bot can run end-to-end encryption here: what was found, or the one-line reason why not. */
export type EncryptionSupport =
  | { readonly available: true; readonly detail: string }
  | { readonly available: false; readonly reason: string };

/** The bot's account, as setup's login found it. */
export interface EncryptionSupportCheck {
  /** The client-server API's base URL. */
  readonly homeserverUrl: string;
  /** The bot's access token (the key endpoints need it). */
  readonly accessToken: string;
  /** The bot's MXID. */
  readonly userId: string;
  /** The device the access token belongs to (from the login or `/whoami`); keys belong to a device. */
  readonly deviceId: string | undefined;
}

async function homeserverCall(
  check: EncryptionSupportCheck,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const base = check.homeserverUrl.endsWith("/") ? check.homeserverUrl : `${check.homeserverUrl}/`;
  const response = await fetch(new URL(path, base), {
    method,
    headers: {
      authorization: `Bearer ${check.accessToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  try {
    return {
      status: response.status,
      json: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  } catch {
    return { status: response.status, json: {} };
  }
}

/**
 * Whether the bot can run end-to-end encryption, and if not, why (in one line). The checks change
 * nothing: the machine is in memory and dropped, and an upload of no keys only answers with the
 * counts the homeserver holds for the device.
 */
export async function checkEncryptionSupport(check: EncryptionSupportCheck): Promise<EncryptionSupport> {
  if (!check.deviceId)
    return {
      available: false,
      reason:
        "the homeserver does not say which device the access token belongs to, and keys belong to a device",
    };
  const support = await loadWasmCrypto();
  if (!support.available) return { available: false, reason: support.reason };
  try {
    const wasm = await import("@matrix-org/matrix-sdk-crypto-wasm");
    const machine = await wasm.OlmMachine.initialize(
      new wasm.UserId(check.userId),
      new wasm.DeviceId(check.deviceId),
    );
    machine.close();
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    return { available: false, reason: `the WASM crypto loaded but did not start here: ${detail}` };
  }
  let keys: { status: number; json: Record<string, unknown> };
  try {
    keys = await homeserverCall(check, "POST", "_matrix/client/v3/keys/upload", {});
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { available: false, reason: `cannot reach the homeserver to check its key endpoints (${cause})` };
  }
  const counts = keys.json.one_time_key_counts;
  if (keys.status !== 200 || typeof counts !== "object" || counts === null) {
    const code = typeof keys.json.errcode === "string" ? keys.json.errcode : `HTTP ${keys.status}`;
    return {
      available: false,
      reason: `the homeserver does not take device keys (POST /_matrix/client/v3/keys/upload answered ${code})`,
    };
  }
  return {
    available: true,
    detail: `the WASM crypto runs here and ${new URL(check.homeserverUrl).host} takes device keys`,
  };
}
