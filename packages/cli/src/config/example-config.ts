import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/**
 * The commented example configuration, shipped in the package (the repository root links to it).
 * `switchboard init` copies it, and `switchboard start` without a switchboard.yaml runs on it, so
 * the defaults a fresh machine runs on and the file that explains them can never drift apart. The
 * same relative path holds from the sources (src/config/) and the build (dist/config/).
 */
export const EXAMPLE_CONFIG_PATH = fileURLToPath(new URL("../../switchboard.example.yaml", import.meta.url));
export const EXAMPLE_CONFIG_LABEL = "switchboard.example.yaml";

export function readExampleConfig(): Promise<string> {
  return readFile(EXAMPLE_CONFIG_PATH, "utf8");
}
