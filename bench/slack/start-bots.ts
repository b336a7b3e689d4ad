/**
 * Starts the two bots of the side-by-side in processes of their own: Switchboard by its CLI as an
 * operator starts it (`switchboard start --config switchboard.yaml`, Slack in HTTP mode, nothing
 * else set unless the set-up says so), and the Chat SDK bot (`chat-sdk-bot.ts`). Both answer with
 * the same OpenAI-compatible model server and post to the same Slack Web API stand-in.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/services/free-port.ts";
import { SIGNING_SECRET } from "../../test/support/slack/event-payloads.ts";
import { BOT_TOKEN } from "../../test/support/slack/web-api-stand-in.ts";
import { BotProcess } from "./bot-process.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(ROOT, "packages", "cli", "src", "main.ts");
const CHAT_SDK_BOT = join(ROOT, "bench", "slack", "chat-sdk-bot.ts");

export interface BotUnderTest {
  readonly process: BotProcess;
  /** Where the bot takes Slack's signed HTTP events. */
  readonly port: number;
  readonly path: string;
}

/** This environment without any Switchboard variable: the bot reads only what the bench gives it. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("SWITCHBOARD_")),
  );
  return { ...env, ...extra };
}

export interface SwitchboardCliOptions {
  /** The folder the CLI runs in: switchboard.yaml is written here, the default SQLite store lands in ./data. */
  readonly dir: string;
  readonly slackApiUrl: string;
  readonly modelBaseUrl: string;
  /** Sections laid over the defaults (memory off, a Redis store…). */
  readonly config?: Record<string, unknown>;
  /** Node flags before the CLI (a CPU profile). */
  readonly nodeFlags?: readonly string[];
  /** Another checkout's `packages/cli/src/main.ts`, to compare two versions; this one's by default. */
  readonly cli?: string;
  /** More environment for the process (what a module given in `nodeFlags` reads). */
  readonly env?: Record<string, string>;
}

/** `switchboard start --config <dir>/switchboard.yaml`, secrets in the environment as the docs advise. */
export async function startSwitchboardCli(options: SwitchboardCliOptions): Promise<BotUnderTest> {
  const port = await freePort();
  const config = {
    model: { provider: "openai-compatible", baseUrl: options.modelBaseUrl, model: "stub", apiKey: "x" },
    slack: { mode: "http", port, host: "127.0.0.1", apiUrl: options.slackApiUrl },
    ...options.config,
  };
  const file = join(options.dir, "switchboard.yaml");
  // JSON is YAML.
  writeFileSync(file, JSON.stringify(config, null, 2));
  const process = await BotProcess.start({
    name: "switchboard start",
    args: [
      ...(options.nodeFlags ?? []),
      "--disable-warning=ExperimentalWarning",
      options.cli ?? CLI,
      "start",
      "--config",
      file,
    ],
    cwd: options.dir,
    env: cleanEnv({
      SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN,
      SWITCHBOARD_SLACK_SIGNING_SECRET: SIGNING_SECRET,
      ...options.env,
    }),
    ready: /running on slack/,
  });
  return { process, port, path: "/slack/events" };
}

export interface ChatSdkProcessOptions {
  readonly dir: string;
  readonly slackApiUrl: string;
  readonly modelBaseUrl: string;
  readonly redis?: { readonly url: string; readonly keyPrefix: string };
  /** Node flags before the script (a CPU profile). */
  readonly nodeFlags?: readonly string[];
}

export async function startChatSdkProcess(options: ChatSdkProcessOptions): Promise<BotUnderTest> {
  const args = {
    apiUrl: options.slackApiUrl,
    modelBaseUrl: options.modelBaseUrl,
    ...(options.redis ? { redis: options.redis } : {}),
  };
  const process = await BotProcess.start({
    name: "Chat SDK bot",
    args: [
      ...(options.nodeFlags ?? []),
      "--disable-warning=ExperimentalWarning",
      CHAT_SDK_BOT,
      JSON.stringify(args),
    ],
    cwd: options.dir,
    env: cleanEnv({}),
    ready: /listening on \d+/,
  });
  return { process, port: Number(process.printed(/listening on (\d+)/)), path: "/api/webhooks/slack" };
}
