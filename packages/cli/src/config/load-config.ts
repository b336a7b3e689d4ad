import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseDocument } from "yaml";
import {
  ENV_OVERRIDES,
  type Environment,
  envValue,
  overridePath,
  type SecretSection,
} from "./env-overrides.ts";
import { EXAMPLE_CONFIG_LABEL, readExampleConfig } from "./example-config.ts";
import { describeIssues, describeValue } from "./format-issues.ts";
import { withPassedEnv } from "./mcp-env.ts";
import { PLATFORM_TITLES, type Platform } from "./platform-sections.ts";

const SECTION_TITLES: Record<SecretSection, string> = { ...PLATFORM_TITLES, http: "the HTTP server" };

import { configFileSchema, ENABLING_SECTIONS, type SwitchboardConfig } from "./schema.ts";

export const DEFAULT_CONFIG_PATH = "switchboard.yaml";

/** The configuration cannot be used; each line names where (file and key path, or variable) and what was expected. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export interface LoadConfigOptions {
  /** As given with --config; undefined means ./switchboard.yaml, which may be absent (then: defaults). */
  readonly path?: string;
  readonly cwd: string;
  readonly env: Environment;
  /** `--role` as given on the command line: wins over the file and SWITCHBOARD_ROLE. */
  readonly role?: string;
}

export type ProviderKeys = Partial<Record<"openai" | "anthropic", string>>;

export interface LoadedConfig {
  /** Validated, with defaults filled in and `model.apiKey` taken from the environment when set there. */
  readonly config: SwitchboardConfig;
  /** The file as the operator named it, or a phrase saying that the built-in defaults (the example file) are in use. */
  readonly source: string;
  /** The absolute path of the file, whether or not it exists. */
  readonly filePath: string;
  readonly fileExists: boolean;
  /** API keys per provider, for the main model and any agent's own model. */
  readonly providerKeys: ProviderKeys;
  /** Names (never values) of the environment variables that were applied. */
  readonly appliedEnv: readonly string[];
  /** Worth telling the operator, but not errors. */
  readonly notices: readonly string[];
}

/** Reads switchboard.yaml (or the built-in defaults), applies the environment and validates once. */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const label = options.path ?? DEFAULT_CONFIG_PATH;
  const filePath = resolve(options.cwd, label);
  const text = await readConfigFile(filePath, label, options.path !== undefined);
  // No file: run on the example that `switchboard init` writes, so both always agree.
  const raw =
    text === undefined ? parseYaml(await readExampleConfig(), EXAMPLE_CONFIG_LABEL) : parseYaml(text, label);

  const applied = new Map<string, string>();
  const appliedEnv: string[] = [];
  const notices: string[] = [];
  const providerKeys: ProviderKeys = {};
  for (const { variable, target } of ENV_OVERRIDES) {
    const value = envValue(options.env, variable);
    if (value === undefined) continue;
    if (target.kind === "key") {
      raw[target.key] = value;
    } else if (target.kind === "section-secret") {
      const section = raw[target.section];
      if (section === undefined) {
        notices.push(
          `${variable} is set, but ${label} has no ${target.section}: section, so ${SECTION_TITLES[target.section]} stays off`,
        );
        continue;
      }
      if (!isMapping(section)) continue; // the validator reports the section itself
      raw[target.section] = { ...section, [target.field]: value };
    } else {
      providerKeys[target.provider] = value;
    }
    applied.set(overridePath(target), variable);
    appliedEnv.push(variable);
  }

  if (options.role !== undefined) {
    raw.role = options.role;
    applied.set("role", "--role");
  }
  if (text !== undefined && raw.team === undefined) notices.push(await teamlessNotice(label));

  const result = configFileSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    throw new ConfigError(
      describeIssues(result.error.issues, configFileSchema).map(({ path, problem }) => {
        const variable = [...applied].find(([at]) => path === at || path.startsWith(`${at}.`))?.[1];
        if (variable) return `${variable} (${path}): ${problem}`;
        const file = text === undefined ? EXAMPLE_CONFIG_LABEL : label;
        // A missing secret is usually meant to come from the environment: say which variable.
        const secret = ENV_OVERRIDES.find(
          ({ target }) => target.kind === "section-secret" && overridePath(target) === path,
        );
        const hint = secret ? `; or set ${secret.variable} in the environment` : "";
        return path === "" ? `${file}: ${problem}` : `${file}: ${path}: ${problem}${hint}`;
      }),
    );
  }

  let config = withPassedEnv(result.data, options.env);
  const model = config.model;
  if (model.provider === "openai" || model.provider === "anthropic") {
    providerKeys[model.provider] ??= model.apiKey;
    const apiKey = providerKeys[model.provider];
    if (apiKey !== undefined) config = { ...config, model: { ...model, apiKey } };
  }
  return {
    config,
    source:
      text === undefined ? `built-in defaults (no ${label}; \`switchboard init\` writes them out)` : label,
    filePath,
    fileExists: text !== undefined,
    providerKeys,
    appliedEnv,
    notices,
  };
}

async function readConfigFile(filePath: string, label: string, named: boolean): Promise<string | undefined> {
  try {
    return await readFile(filePath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !named) return undefined;
    if (code === "ENOENT")
      throw new ConfigError([
        `${label}: file not found (create one with: switchboard init --config ${label})`,
      ]);
    throw new ConfigError([`${label}: cannot read the file: ${(error as Error).message}`]);
  }
}

/**
 * A file without `team:` runs the supervisor alone, while running with no file at all gives the
 * example's specialists: an operator who wrote only `model:` would lose them without a word.
 */
async function teamlessNotice(label: string): Promise<string> {
  const example = parseYaml(await readExampleConfig(), EXAMPLE_CONFIG_LABEL);
  const team = isMapping(example.team) ? example.team : {};
  const names = (Array.isArray(team.specialists) ? team.specialists : []).flatMap((specialist: unknown) =>
    isMapping(specialist) && typeof specialist.name === "string" ? [specialist.name] : [],
  );
  const theirs = names.length > 0 ? ` (its specialists ${names.join(", ")} are not used)` : "";
  return `${label} has no team: section, so the supervisor answers alone, not the example's team${theirs}; to keep them, copy the team: section from the example (switchboard init --config ${EXAMPLE_CONFIG_LABEL} writes it)`;
}

/** The file's top-level mapping; a key with nothing after it means "defaults" (or "enabled", for a platform). */
function parseYaml(text: string, label: string): Record<string, unknown> {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const [first] = document.errors;
  if (first) {
    const where = first.linePos?.[0] ? `:${first.linePos[0].line}:${first.linePos[0].col}` : "";
    throw new ConfigError([
      `${label}${where}: not valid YAML: ${first.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
    ]);
  }
  const value: unknown = document.toJS();
  if (value === null || value === undefined) return {};
  if (!isMapping(value)) {
    throw new ConfigError([
      `${label}: expected a mapping of sections (model:, store:, team:, …) at the top level, got ${describeValue(value)}`,
    ]);
  }
  const raw: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null) raw[key] = entry;
    else if (ENABLING_SECTIONS.has(key)) raw[key] = {};
  }
  return raw;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function enabledPlatforms(config: SwitchboardConfig): Platform[] {
  return (["matrix", "discord", "slack"] as const).filter((platform) => config[platform] !== undefined);
}
