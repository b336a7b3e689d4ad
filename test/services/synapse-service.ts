/**
 * A private, real Matrix homeserver (Synapse 1.67) for one test file: started in a temporary
 * folder on a free loopback port by the script in ../shared/synapse/ (see its README), users
 * registered through the shared-secret admin API, stopped (and its folder removed) at the end.
 * Undefined when the script or its Python environment is missing: the tests that need it skip,
 * and say so in one line (CI installs it, see .ci/run).
 */
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "./free-port.ts";

const run = promisify(execFile);

/** The script, from a checkout with `shared/` beside it (as CI lays it out); SWITCHBOARD_TEST_SYNAPSE overrides. */
export const SYNAPSE_SCRIPT =
  process.env.SWITCHBOARD_TEST_SYNAPSE?.trim() ||
  fileURLToPath(new URL("../../../shared/synapse/synapse.sh", import.meta.url));
const SYNAPSE_VENV = join(
  process.env.SYNAPSE_HOME ?? join(homedir(), ".cache/synapse-1.67.0"),
  "venv/bin/python",
);

/** Why a private Synapse cannot start here, or undefined when it can. */
export function synapseMissing(): string | undefined {
  if (!existsSync(SYNAPSE_SCRIPT)) return `${SYNAPSE_SCRIPT} not found`;
  if (!existsSync(SYNAPSE_VENV)) return `Synapse is not prepared (run ${SYNAPSE_SCRIPT} prepare as root)`;
  return undefined;
}

export interface RegisteredUser {
  readonly userId: string;
  readonly accessToken: string;
  readonly deviceId: string;
  readonly password: string;
}

export class PrivateSynapse {
  readonly url: string;
  readonly serverName: string;
  readonly #secret: string;
  readonly #dataDir: string;
  readonly #root: string;
  #admin: RegisteredUser | undefined;

  private constructor(init: {
    url: string;
    serverName: string;
    secret: string;
    dataDir: string;
    root: string;
  }) {
    this.url = init.url;
    this.serverName = init.serverName;
    this.#secret = init.secret;
    this.#dataDir = init.dataDir;
    this.#root = init.root;
  }

  static async start(): Promise<PrivateSynapse> {
    const root = await mkdtemp(join(tmpdir(), "switchboard-synapse-"));
    let lastError: unknown;
    // Another program may take the free port between asking for it and binding it: try a few.
    for (let attempt = 0; attempt < 3; attempt++) {
      const dataDir = join(root, `hs-${attempt}`);
      try {
        const { stdout } = await run(SYNAPSE_SCRIPT, ["start", dataDir, String(await freePort())], {
          timeout: 90_000,
        });
        const started = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
          url: string;
          serverName: string;
          registrationSharedSecret: string;
        };
        return new PrivateSynapse({
          url: started.url,
          serverName: started.serverName,
          secret: started.registrationSharedSecret,
          dataDir,
          root,
        });
      } catch (error) {
        lastError = error;
        await run(SYNAPSE_SCRIPT, ["stop", dataDir]).catch(() => undefined);
      }
    }
    await rm(root, { recursive: true, force: true });
    throw lastError;
  }

  /** Registers a user (shared-secret admin API) with message rate limits lifted. */
  async register(
    localpart: string,
    options: { admin?: boolean; displayName?: string } = {},
  ): Promise<RegisteredUser> {
    const password = `${localpart}-password`;
    const { nonce } = (await this.#fetch("GET", "/_synapse/admin/v1/register")) as { nonce: string };
    const admin = options.admin === true;
    const mac = createHmac("sha1", this.#secret)
      .update(`${nonce}\0${localpart}\0${password}\0${admin ? "admin" : "notadmin"}`)
      .digest("hex");
    const registered = (await this.#fetch("POST", "/_synapse/admin/v1/register", {
      nonce,
      username: localpart,
      password,
      admin,
      mac,
      ...(options.displayName ? { displayname: options.displayName } : {}),
    })) as { user_id: string; access_token: string; device_id: string };
    const user = {
      userId: registered.user_id,
      accessToken: registered.access_token,
      deviceId: registered.device_id,
      password,
    };
    if (!admin) {
      this.#admin ??= await this.register("synapse-admin", { admin: true });
      await this.#fetch(
        "POST",
        `/_synapse/admin/v1/users/${encodeURIComponent(user.userId)}/override_ratelimit`,
        { messages_per_second: 0, burst_count: 0 },
        this.#admin.accessToken,
      );
    }
    return user;
  }

  /** A new device (session) of an existing user: a password login. */
  async login(user: RegisteredUser, deviceName: string): Promise<RegisteredUser> {
    const login = (await this.#fetch("POST", "/_matrix/client/v3/login", {
      type: "m.login.password",
      identifier: { type: "m.id.user", user: user.userId },
      password: user.password,
      initial_device_display_name: deviceName,
    })) as { user_id: string; access_token: string; device_id: string };
    return {
      userId: login.user_id,
      accessToken: login.access_token,
      deviceId: login.device_id,
      password: user.password,
    };
  }

  /** A client-server API call as `token`'s user. */
  request(method: string, path: string, token: string, body?: unknown): Promise<unknown> {
    return this.#fetch(method, path, body, token);
  }

  async stop(): Promise<void> {
    await run(SYNAPSE_SCRIPT, ["stop", this.#dataDir]).catch(() => undefined);
    await rm(this.#root, { recursive: true, force: true });
  }

  async #fetch(method: string, path: string, body?: unknown, token?: string): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
    return text === "" ? {} : JSON.parse(text);
  }
}
