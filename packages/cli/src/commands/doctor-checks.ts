import { randomBytes } from "node:crypto";
import { type Logger, openStore, type Store } from "@switchboard/core";
import { teamIdentities } from "@switchboard/core/host";
import { openCheckpointerFor } from "../app/checkpointer.ts";
import { createPlatformAdapters, type PlatformAdapter } from "../app/platform-adapters.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import { PLATFORM_TITLES } from "../config/platform-sections.ts";
import type { CheckResult } from "./doctor-result.ts";

export const MINIMUM_NODE = { major: 22, minor: 18 } as const;

export function checkNode(version: string): CheckResult {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor);
  const needed = `${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}`;
  return ok
    ? { name: "node", status: "ok", detail: `${version} (needs ${needed} or newer)` }
    : {
        name: "node",
        status: "problem",
        detail: `${version} is too old (needs ${needed} or newer, for built-in SQLite and TypeScript)`,
        fix: "install Node 22.18+, or use ./run, which installs Node 22 into .toolchain",
      };
}

/**
 * Opens the store and writes, reads back and deletes one value, as every turn will. The store
 * stays open for the platform checks (Matrix reuses the login `start` kept there); the caller closes it.
 */
export async function checkStore(
  url: string,
  cwd: string,
  logger: Logger,
): Promise<{ result: CheckResult; store?: Store }> {
  let store: Store | undefined;
  try {
    store = await openStore(url, { cwd, logger });
    const probe = store.namespace<string>("doctor");
    const key = `probe-${randomBytes(6).toString("hex")}`;
    const value = randomBytes(6).toString("hex");
    await probe.set(key, value, 60_000);
    const read = await probe.get(key);
    await probe.delete(key);
    if (read !== value) throw new Error(`wrote ${value} but read back ${String(read)}`);
    return {
      result: { name: "store", status: "ok", detail: `${store.description} (write, read and delete work)` },
      store,
    };
  } catch (error) {
    await store?.close();
    return {
      result: {
        name: "store",
        status: "problem",
        detail: `${url}: ${(error as Error).message}`,
        fix: "start the backend or correct store: (or SWITCHBOARD_STORE_URL)",
      },
    };
  }
}

/** Opens the checkpointer and reads and deletes a thread that does not exist. */
export async function checkCheckpoints(url: string, cwd: string, logger: Logger): Promise<CheckResult> {
  try {
    const opened = await openCheckpointerFor(url, { cwd, logger });
    try {
      const threadId = `doctor-${randomBytes(6).toString("hex")}`;
      await opened.saver.getTuple({ configurable: { thread_id: threadId } });
      await opened.saver.deleteThread(threadId);
      return { name: "checkpoints", status: "ok", detail: `${opened.description} (read and delete work)` };
    } finally {
      await opened.close();
    }
  } catch (error) {
    return {
      name: "checkpoints",
      status: "problem",
      detail: `${url}: ${(error as Error).message}`,
      fix: "start the backend or correct checkpoints: (or SWITCHBOARD_CHECKPOINTS_URL)",
    };
  }
}

const PLATFORM_CHECK_TIMEOUT_MS = 20_000;

/**
 * Each enabled platform's credentials, checked by its adapter without starting it, with the
 * adapter's warnings. With the store, an adapter uses what `start` keeps there (Matrix's login).
 */
export async function checkPlatforms(
  loaded: LoadedConfig,
  logger: Logger,
  store: Store | undefined,
): Promise<CheckResult[]> {
  let adapters: PlatformAdapter[];
  try {
    adapters = await createPlatformAdapters(loaded.config, { logger, ...(store ? { store } : {}) });
  } catch (error) {
    return [{ name: "platforms", status: "problem", detail: (error as Error).message }];
  }
  if (adapters.length === 0) {
    return [{ name: "platforms", status: "ok", detail: "none enabled: start opens a chat in the terminal" }];
  }
  const checked = await Promise.all(
    adapters.map(async ({ platform, adapter }): Promise<CheckResult[]> => {
      const title = PLATFORM_TITLES[platform];
      // What the team's identities need from the platform (a Slack scope) is part of the check.
      adapter.useIdentities?.(teamIdentities(loaded.config.team));
      if (!adapter.check)
        return [
          {
            name: platform,
            status: "ok",
            detail: `${title} configured (this adapter has no credential check)`,
          },
        ];
      try {
        const outcome = await withTimeout(
          adapter.check(),
          PLATFORM_CHECK_TIMEOUT_MS,
          `${title} did not answer within ${PLATFORM_CHECK_TIMEOUT_MS / 1000} s`,
        );
        const warnings = outcome.warnings.map(
          (warning): CheckResult => ({
            name: platform,
            status: "warning",
            detail: warning,
            fix: `see packages/${platform}/README.md`,
          }),
        );
        const notes = (outcome.notes ?? []).map(
          (note): CheckResult => ({ name: platform, status: "ok", detail: note }),
        );
        return [
          { name: platform, status: "ok", detail: `${title} credentials accepted` },
          ...notes,
          ...warnings,
        ];
      } catch (error) {
        return [
          {
            name: platform,
            status: "problem",
            detail: (error as Error).message,
            fix: `see packages/${platform}/README.md`,
          },
        ];
      }
    }),
  );
  return checked.flat();
}

async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
