import { readFileSync } from "node:fs";

/** The version in packages/cli/package.json. */
export function cliVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const version =
    typeof manifest === "object" && manifest !== null && "version" in manifest ? manifest.version : undefined;
  return typeof version === "string" ? version : "unknown";
}
