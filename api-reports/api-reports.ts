/**
 * The public API of every package, one report per entry point (`.` and each subpath of its
 * `exports`), written by API Extractor into packages/<package>/api/<entry>.api.md and kept in git, so
 * a change to what a package offers shows up as a diff in review. Reads the compiled declarations:
 * run `pnpm build` first (the `api:check` and `api:update` scripts rebuild everything with `--force`:
 * an incremental build keeps declarations emitted in an earlier order, and TypeScript prints union
 * members in the order it met them, so only a whole build gives the report a clean clone gets).
 *
 *   node api-reports/api-reports.ts           check: fails when a report differs from the code (CI)
 *   node api-reports/api-reports.ts --update  rewrites the reports
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig, ExtractorLogLevel } from "@microsoft/api-extractor";

const root = fileURLToPath(new URL("..", import.meta.url));
const update = process.argv.includes("--update");

interface EntryPoint {
  readonly packageFolder: string;
  readonly packageName: string;
  /** `index` for the package root, else the subpath's name (`adapter`, `testing`). */
  readonly name: string;
  readonly declarations: string;
}

/** Every entry point a published package offers, read from its publishConfig.exports. */
function entryPoints(): EntryPoint[] {
  const found: EntryPoint[] = [];
  for (const folder of readdirSync(join(root, "packages")).sort()) {
    const packageFolder = join(root, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8")) as {
      name: string;
      publishConfig?: { exports?: Record<string, { types?: string }> };
    };
    for (const [subpath, target] of Object.entries(manifest.publishConfig?.exports ?? {})) {
      if (!target.types) continue;
      found.push({
        packageFolder,
        packageName: manifest.name,
        name: subpath === "." ? "index" : subpath.replace(/^\.\//, "").replaceAll("/", "-"),
        declarations: join(packageFolder, target.types),
      });
    }
  }
  return found;
}

const temp = mkdtempSync(join(tmpdir(), "switchboard-api-"));
const changed: string[] = [];
let failed = false;
try {
  for (const entry of entryPoints()) {
    if (update) mkdirSync(join(entry.packageFolder, "api"), { recursive: true });
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: entry.packageFolder,
        mainEntryPointFilePath: entry.declarations,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: "ES2023",
              module: "NodeNext",
              moduleResolution: "NodeNext",
              lib: ["ES2023"],
              types: ["node"],
              typeRoots: [join(root, "node_modules/@types")],
              strict: true,
              skipLibCheck: true,
              // Other workspace packages resolve to their TypeScript sources (their development exports).
              allowImportingTsExtensions: true,
              noEmit: true,
            },
            files: [entry.declarations],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: entry.name,
          reportFolder: join(entry.packageFolder, "api"),
          reportTempFolder: join(temp, entry.packageName.replace("/", "+")),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // Types reachable from the API but not exported by name are noted in the report itself.
          extractorMessageReporting: {
            default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
            // Release tags (@public, @beta) are not used: a package's entry points are its API.
            "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
            // Says a type came from a .ts source (a workspace package, a dependency shipping .ts) and
            // names it by absolute path: the report would differ from one checkout folder to another.
            "ae-wrong-input-file-type": { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        },
      },
      configObjectFullPath: join(entry.packageFolder, "api-extractor.json"),
      packageJsonFullPath: join(entry.packageFolder, "package.json"),
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      messageCallback: (message) => {
        // Only errors are shown; "the report changed" is said once, below, for every report.
        if (message.logLevel !== ExtractorLogLevel.Error) message.handled = true;
      },
    });
    const report = `packages/${entry.packageFolder.split("/").at(-1)}/api/${entry.name}.api.md`;
    if (result.errorCount > 0) {
      failed = true;
      process.stderr.write(`api reports: ${report}: ${result.errorCount} error(s)\n`);
    } else if (result.apiReportChanged) changed.push(report);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

if (failed) process.exit(1);
if (changed.length > 0 && !update) {
  process.stderr.write(
    `api reports: the public API differs from its report in ${changed.join(", ")}.\nIf the change is meant, run \`pnpm api:update\` and commit the reports (the diff is what reviewers see).\n`,
  );
  process.exit(1);
}
process.stderr.write(
  update
    ? `api reports: ${changed.length === 0 ? "every report was current" : `updated ${changed.join(", ")}`}\n`
    : "api reports: every package's public API matches its report\n",
);
