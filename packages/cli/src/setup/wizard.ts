import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Document, parseDocument } from "yaml";
import { checkModels } from "../commands/doctor-model.ts";
import { envFilePath, readEnvFile, writeEnvFile } from "../config/env-file.ts";
import type { Environment } from "../config/env-overrides.ts";
import { readExampleConfig } from "../config/example-config.ts";
import { ConfigError, DEFAULT_CONFIG_PATH, type LoadedConfig, loadConfig } from "../config/load-config.ts";
import { PLATFORM_TITLES, type Platform } from "../config/platform-sections.ts";
import { type Asker, SetupStopped, secretFromEnvOrAsked } from "./asker.ts";
import { setupDiscord } from "./discord-step.ts";
import { setupMatrix } from "./matrix-step.ts";
import type { PlatformStep } from "./platform-step.ts";
import { registeredCommands } from "./registered-commands.ts";
import { setupSlack } from "./slack-step.ts";

export interface SetupOptions {
  /** --config as given. */
  readonly config: string | undefined;
}

export interface SetupEnvironment {
  readonly env: Environment;
  readonly cwd: string;
}

const PROVIDER_KEYS = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" } as const;
const DEFAULT_MODELS = { openai: "gpt-4o-mini", anthropic: "claude-sonnet-4-5" } as const;

/**
 * `switchboard setup`: asks which platforms and, for each, walks through creating the app, checks
 * the credentials live, then writes switchboard.yaml (adding to an existing one, never replacing a
 * section without asking) and switchboard.env (mode 0600, the only place secrets go).
 */
export async function runSetup(
  asker: Asker,
  options: SetupOptions,
  outside: SetupEnvironment,
): Promise<number> {
  const label = options.config ?? DEFAULT_CONFIG_PATH;
  const configPath = resolve(outside.cwd, label);
  const envPath = envFilePath(outside.cwd, options.config);
  asker.begin("Switchboard setup");
  try {
    const existingText = await readFile(configPath, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    const existingEnv = (await readEnvFile(envPath)) ?? {};
    if (
      existingText !== undefined &&
      !(await asker.confirm(
        "add",
        `${label} exists: add to it? (what it has stays unless you agree to replace it)`,
        true,
      ))
    )
      throw new SetupStopped(`${label} left unchanged`);
    const env: Environment = { ...existingEnv, ...withoutBlank(outside.env) };
    const doc = parseDocument(existingText ?? (await readExampleConfig()));
    const base = await loadBase(existingText === undefined ? undefined : label, outside.cwd, env);
    const commands = await registeredCommands(base, outside.cwd);

    const platforms = await asker.multiselect<Platform>(
      "platforms",
      "Which platforms should Switchboard answer on? (space to pick, enter to go on)",
      [
        { value: "slack", label: "Slack", hint: "a workspace: mentions, threads, DMs, /switchboard" },
        { value: "discord", label: "Discord", hint: "servers and DMs, slash commands" },
        { value: "matrix", label: "Matrix", hint: "rooms on any homeserver, end-to-end encryption" },
      ],
    );
    const secrets: Record<string, string> = {};
    const model = await modelStep(asker, env, secrets);
    if (model !== undefined) doc.set("model", model);

    const steps: PlatformStep[] = [];
    for (const platform of platforms) {
      if (doc.has(platform)) {
        const replace = await asker.confirm(
          `replace.${platform}`,
          `${label} already has a ${platform}: section: replace it?`,
          false,
        );
        if (!replace) {
          asker.warn(`kept the ${platform}: section of ${label} as it is (--force replaces it)`);
          continue;
        }
      }
      const context = { asker, env, commands };
      const step =
        platform === "slack"
          ? await setupSlack(context)
          : platform === "discord"
            ? await setupDiscord(context)
            : await setupMatrix(context);
      setSection(doc, platform, step.section);
      Object.assign(secrets, step.secrets);
      steps.push(step);
    }

    await writeConfig(configPath, doc, existingText !== undefined);
    await writeEnvFile(envPath, { ...existingEnv, ...secrets });
    asker.ok(
      `wrote ${label}${Object.keys(secrets).length > 0 ? ` and its secrets to ${relativeEnv(label)} (mode 600)` : ""}`,
    );

    const written = await loadConfig({
      ...(options.config === undefined ? {} : { path: options.config }),
      cwd: outside.cwd,
      env: { ...existingEnv, ...secrets, ...withoutBlank(outside.env) },
    });
    const modelOk = await checkModel(asker, written);
    let allOk = modelOk;
    for (const step of steps) allOk = (await step.afterWrite?.(written)) !== false && allOk;
    asker.end(
      allOk
        ? `Done. Check everything with \`./run switchboard doctor${flag(options)}\`, then \`./run start${flag(options)}\`.`
        : `Written, with problems above; fix them and run \`./run switchboard doctor${flag(options)}\`.`,
    );
    return allOk ? 0 : 1;
  } catch (error) {
    if (error instanceof SetupStopped) {
      asker.end(error.message);
      return 1;
    }
    if (error instanceof ConfigError) {
      for (const problem of error.problems) asker.problem(problem);
      asker.end("fix the configuration file, then run setup again");
      return 1;
    }
    throw error;
  }
}

function flag(options: SetupOptions): string {
  return options.config === undefined ? "" : ` --config ${options.config}`;
}

function relativeEnv(label: string): string {
  const slash = label.lastIndexOf("/");
  return slash === -1 ? "switchboard.env" : `${label.slice(0, slash + 1)}switchboard.env`;
}

function withoutBlank(env: Environment): Environment {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
}

/** The configuration as it stands (the file, or the built-in defaults when there is none). */
async function loadBase(path: string | undefined, cwd: string, env: Environment): Promise<LoadedConfig> {
  if (path !== undefined) return loadConfig({ path, cwd, env });
  // No file: the defaults, read from a folder that surely has no switchboard.yaml.
  const empty = await mkdtemp(join(tmpdir(), "switchboard-setup-"));
  try {
    return await loadConfig({ cwd: empty, env });
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}

function setSection(doc: Document, platform: Platform, section: Record<string, unknown>): void {
  const node = doc.createNode(section);
  node.commentBefore = ` ${PLATFORM_TITLES[platform]}, written by \`switchboard setup\`; its secrets are in switchboard.env.`;
  doc.set(platform, node);
}

/** A new file only where there was none ("wx"); an existing one replaced whole, by rename. */
async function writeConfig(path: string, doc: Document, exists: boolean): Promise<void> {
  const text = doc.toString({ lineWidth: 0 });
  if (!exists) {
    await writeFile(path, text, { flag: "wx" });
    return;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

async function modelStep(
  asker: Asker,
  env: Environment,
  secrets: Record<string, string>,
): Promise<string | undefined> {
  const provider = await asker.select(
    "model.provider",
    "Which model should the agents use?",
    [
      { value: "keep", label: "keep the configured one" },
      {
        value: "offline",
        label: "offline",
        hint: "built in, no key: routes by matching words (for trying out)",
      },
      { value: "openai", label: "OpenAI", hint: "needs OPENAI_API_KEY" },
      { value: "anthropic", label: "Anthropic", hint: "needs ANTHROPIC_API_KEY" },
    ] as const,
    "keep",
  );
  if (provider === "keep") return undefined;
  if (provider === "offline") return "offline";
  const name = await asker.text("model.name", "Model name", { initial: DEFAULT_MODELS[provider] });
  const variable = PROVIDER_KEYS[provider];
  const key = await secretFromEnvOrAsked(
    asker,
    env,
    variable,
    `${variable} (stored only in switchboard.env)`,
  );
  secrets[variable] = key;
  return `${provider}:${name}`;
}

/** The one-token request `doctor` sends, for every model the configuration names. */
async function checkModel(asker: Asker, loaded: LoadedConfig): Promise<boolean> {
  let ok = true;
  for (const result of await checkModels(loaded, { offline: false })) {
    if (result.status === "problem") {
      ok = false;
      asker.problem(`model: ${result.detail}${result.fix ? ` — fix: ${result.fix}` : ""}`);
    } else asker.ok(`model: ${result.detail}`);
  }
  return ok;
}
