/**
 * Writes docs/reference/configuration.md from the schema (`pnpm docs:config`), or with `--check`
 * fails when the page in the repository differs from what the schema generates (CI).
 *
 *   node packages/cli/src/config/reference/write-config-reference.ts [--check]
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderConfigReference, undescribedKeys } from "./config-reference.ts";

const page = fileURLToPath(new URL("../../../../../docs/reference/configuration.md", import.meta.url));
const generated = renderConfigReference();
const undescribed = undescribedKeys();
if (undescribed.length > 0)
  process.stderr.write(
    `config reference: ${undescribed.length} key(s) have no .describe() text: ${undescribed.join(", ")}\n`,
  );

if (process.argv.includes("--check")) {
  const current = await readFile(page, "utf8").catch(() => "");
  if (current !== generated) {
    process.stderr.write(
      "config reference: docs/reference/configuration.md is stale: the configuration schema changed. Run `pnpm docs:config` and commit the page.\n",
    );
    process.exit(1);
  }
  process.stderr.write("config reference: docs/reference/configuration.md is current\n");
} else {
  await writeFile(page, generated);
  process.stderr.write("config reference: wrote docs/reference/configuration.md\n");
}
