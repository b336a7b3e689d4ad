import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { ConfigError, type LoadConfigOptions, loadConfig } from "./load-config.ts";

/** A temporary folder per test, and ways to load a switchboard.yaml written into it. */
export function useConfigFolder() {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function loadText(text: string, env: LoadConfigOptions["env"] = {}) {
    await writeFile(join(dir, "switchboard.yaml"), text);
    return loadConfig({ cwd: dir, env });
  }

  /** The problems a rejected file reports; fails when the file is accepted. */
  async function problemsOf(text: string, env: LoadConfigOptions["env"] = {}): Promise<readonly string[]> {
    try {
      await loadText(text, env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error("expected the configuration to be rejected");
  }

  return { dir: () => dir, loadText, problemsOf };
}
