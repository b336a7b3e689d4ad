/**
 * `switchboard setup` as an operator meets it: the wizard runs in a real pseudo-terminal (see
 * support/terminal-session.ts) and is answered key by key, against the Slack and Discord stand-ins
 * and a real Synapse for the Matrix login. What it writes must pass `switchboard doctor` and
 * `switchboard start` must run on it — on all three platforms at once. Then the same without a
 * terminal (`--yes`, answers from flags and the environment).
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import { freePort } from "./services/free-port.ts";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "./services/synapse-service.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";
import { FakeSlack, type RequestUrlCheck } from "./support/slack/fake-slack.ts";
import { APP_TOKEN, BOT_TOKEN } from "./support/slack/web-api-stand-in.ts";
import { KEY, TerminalSession } from "./support/terminal-session.ts";

const MAIN = fileURLToPath(new URL("../packages/cli/src/main.ts", import.meta.url));
const missing = synapseMissing();
if (missing) process.stderr.write(`setup wizard Matrix login skipped: ${missing}\n`);

/** A clean environment: nothing of the developer's Switchboard settings leaks into the child. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TERM: "xterm-256color", ...extra };
}

/** The app's signing secret, as Slack shows it: 32 hexadecimal digits. */
const APP_SIGNING_SECRET = "8f14e45fceea167a5a36dedd4bea2543";
const OTHER_SIGNING_SECRET = "c9f0f895fb98ab9159f51fd0297e236d";

/**
 * The person pastes the Request URL into the app settings: the stand-in sends Slack's signed
 * url_verification (again while setup is still opening its port, as a person would press Retry).
 */
async function enterRequestUrl(slack: FakeSlack, url: string): Promise<RequestUrlCheck> {
  return waitFor(
    "setup to listen for Slack's request",
    () => slack.verifyRequestUrl(url).catch(() => undefined),
    10_000,
  );
}

function setupCommand(...flags: string[]): string[] {
  return [process.execPath, "--disable-warning=ExperimentalWarning", MAIN, "setup", ...flags];
}

describe.skipIf(missing !== undefined)("switchboard setup", () => {
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let synapse: PrivateSynapse;
  let bot: RegisteredUser;
  const folders: string[] = [];
  const sessions: TerminalSession[] = [];

  beforeAll(async () => {
    slack = await FakeSlack.start({ transport: "socket" });
    discord = await FakeDiscord.start();
    synapse = await PrivateSynapse.start();
    bot = await synapse.register("switchboard");
  }, 120_000);

  afterAll(async () => {
    for (const session of sessions) session.kill();
    await slack?.close();
    await discord?.close();
    await synapse?.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  async function folder(): Promise<string> {
    const made = await mkdtemp(join(tmpdir(), "switchboard-setup-"));
    folders.push(made);
    return made;
  }

  async function displayName(userId: string): Promise<string | undefined> {
    const response = await fetch(`${synapse.url}/_matrix/client/v3/profile/${encodeURIComponent(userId)}`, {
      headers: { authorization: `Bearer ${bot.accessToken}` },
    });
    return ((await response.json()) as { displayname?: string }).displayname;
  }

  it("walks through Slack, Discord and Matrix in a terminal; doctor passes and start runs on all three", async () => {
    const cwd = await folder();
    const session = new TerminalSession(
      setupCommand("--slack-api-url", slack.api.apiUrl, "--discord-api-url", discord.apiUrl),
      { cwd, env: childEnv() },
    );
    sessions.push(session);

    await session.answer("Which platforms", `${KEY.space}${KEY.down}${KEY.space}${KEY.down}${KEY.space}`);
    await session.expect("◼ Matrix");
    session.type(KEY.enter);
    await session.answer("Which model", `${KEY.down}${KEY.enter}`); // offline

    // Slack: the manifest and the link, then the tokens, checked live.
    await session.answer("How should Slack reach Switchboard?", KEY.enter); // Socket Mode
    await session.expect("Slack app manifest");
    await session.expect("https://api.slack.com/apps?new_app=1&manifest_json=%7B");
    await session.answer("Bot User OAuth Token", "xoxb-not-the-token\r");
    await session.answer("App-Level Token", `${APP_TOKEN}\r`);
    await session.expect("Slack rejected the bot token (invalid_auth)");
    await session.answer("Try the Slack tokens again?", KEY.enter);
    await session.answer("Bot User OAuth Token", `${BOT_TOKEN}\r`);
    await session.answer("App-Level Token", `${APP_TOKEN}\r`);
    await session.expect("the required scopes are granted; Socket Mode connects");

    // Discord: the token (user and intents checked), the invite link, the server for commands.
    await session.expect("MESSAGE CONTENT INTENT");
    await session.answer("Bot token", `${discord.token}\r`);
    await session.expect("MESSAGE CONTENT INTENT is on");
    await session.expect(
      `https://discord.com/oauth2/authorize?client_id=${discord.world.applicationId}&scope=bot+applications.commands&permissions=309237746688`,
    );
    await session.answer("Server id for the slash commands", `${discord.world.guildId}\r`);

    // Matrix: a password login once, /whoami, E2EE offered (it can run here, and Synapse takes
    // device keys) and taken with its default, a display name.
    await session.answer("Homeserver URL", `${synapse.url}\r`);
    await session.answer("The bot account", "switchboard\r");
    await session.answer("Password", `${bot.password}\r`);
    await session.expect(`logged in as ${bot.userId}, device `);
    await session.expect("end-to-end encryption can run (the WASM crypto runs here and");
    await session.answer("Turn on end-to-end encryption?", KEY.enter); // the default: yes
    await session.answer("Display name people see", "\u0015Helpdesk\r"); // Ctrl-U clears the suggestion
    await session.expect("/invite @");
    await session.expect("slash commands registered in server");
    await session.expect("Done.");
    expect(await session.exited).toBe(0);

    // The files: the sections in the YAML (no secrets), the secrets in a private env file, never the password.
    const yaml = await readFile(join(cwd, "switchboard.yaml"), "utf8");
    const config = parse(yaml) as Record<string, Record<string, unknown>>;
    expect(config.model).toBe("offline");
    expect(config.slack).toEqual({ apiUrl: slack.api.apiUrl });
    expect(config.discord).toEqual({ commandGuildIds: [discord.world.guildId], apiUrl: discord.apiUrl });
    expect(config.matrix).toEqual({ homeserverUrl: synapse.url, userId: bot.userId, encryption: true });
    expect(config.team).toBeDefined(); // the commented defaults, kept
    const env = await readFile(join(cwd, "switchboard.env"), "utf8");
    expect(((await stat(join(cwd, "switchboard.env"))).mode & 0o777).toString(8)).toBe("600");
    expect(env).toContain(`SWITCHBOARD_SLACK_BOT_TOKEN=${BOT_TOKEN}`);
    expect(env).toContain(`SWITCHBOARD_SLACK_APP_TOKEN=${APP_TOKEN}`);
    expect(env).toContain(`SWITCHBOARD_DISCORD_TOKEN=${discord.token}`);
    expect(env).toMatch(/^SWITCHBOARD_MATRIX_ACCESS_TOKEN=\S+$/m);
    for (const text of [yaml, env, session.screen]) expect(text).not.toContain(bot.password);
    expect(yaml).not.toContain(BOT_TOKEN);
    expect(await displayName(bot.userId)).toBe("Helpdesk");
    const registered = discord.desk.commands.get(discord.world.guildId)?.map((command) => command.name);
    expect(registered).toEqual(expect.arrayContaining(["help", "reset", "status", "approve", "usage"]));

    // doctor passes on what was written, with the secrets from switchboard.env alone.
    const doctor = testContext({ cwd, env: {} });
    expect(await runCli(["doctor"], doctor.context)).toBe(0);
    expect(doctor.stdout.text).toContain("all checks passed");
    expect(doctor.stdout.text).toContain("switchboard.env is private (mode 600)");

    // start runs on all three platforms.
    const start = testContext({ cwd, env: {}, keepStdinOpen: true });
    const exit = runCli(["start"], start.context);
    await waitFor("start to run on three platforms", () => start.stderr.text.includes("running on"), 30_000);
    start.shutdown.abort(new Error("SIGTERM"));
    expect(await exit).toBe(0);
  }, 120_000);

  it("HTTP mode checks the signing secret against Slack's signed url_verification: a wrong one is named, the right one verifies the URL", async () => {
    const app = await FakeSlack.start({ transport: "http", signingSecret: APP_SIGNING_SECRET });
    try {
      const cwd = await folder();
      const port = await freePort();
      const session = new TerminalSession(setupCommand("--slack-api-url", app.api.apiUrl), {
        cwd,
        env: childEnv(),
      });
      sessions.push(session);
      await session.answer("Which platforms", `${KEY.space}${KEY.enter}`); // Slack
      await session.answer("Which model", `${KEY.down}${KEY.enter}`); // offline
      await session.answer("How should Slack reach Switchboard?", `${KEY.down}${KEY.enter}`); // HTTP
      await session.answer(
        "The public HTTPS URL Slack should call",
        "https://bots.example.com/hooks/slack\r",
      );
      await session.answer("Port Switchboard listens on for Slack", `\u0015${port}\r`);
      await session.expect("request_url: https://bots.example.com/hooks/slack");
      await session.answer("Bot User OAuth Token", `${BOT_TOKEN}\r`);
      await session.answer("Signing Secret", `${OTHER_SIGNING_SECRET}\r`);
      await session.expect("the required scopes are granted");
      await session.expect(`listens on port ${port} at /hooks/slack`);
      await session.expect("◆  Waiting for Slack's signed request");
      const local = `http://127.0.0.1:${port}/hooks/slack`;

      // Signed with the app's secret, which is not the one typed: refused, and said so.
      expect(await enterRequestUrl(app, local)).toEqual({ verified: false, status: 401 });
      await session.expect(
        "the request Slack sent is not signed with this secret: copy Basic Information → App Credentials → Signing Secret again",
      );
      await session.answer("Type the signing secret again?", KEY.enter);
      await session.answer("Signing Secret", `${APP_SIGNING_SECRET}\r`);
      await session.expect("◆  Waiting for Slack's signed request");
      // Retry in the app settings: now the challenge comes back and Slack marks the URL verified.
      expect(await enterRequestUrl(app, local)).toEqual({ verified: true, status: 200 });
      await session.expect("the signing secret matches");
      await session.expect("Done.");
      expect(await session.exited).toBe(0);

      const config = parse(await readFile(join(cwd, "switchboard.yaml"), "utf8")) as Record<string, unknown>;
      expect(config.slack).toEqual({
        mode: "http",
        port,
        eventsPath: "/hooks/slack",
        apiUrl: app.api.apiUrl,
      });
      const env = await readFile(join(cwd, "switchboard.env"), "utf8");
      expect(env).toContain(`SWITCHBOARD_SLACK_SIGNING_SECRET=${APP_SIGNING_SECRET}`);
      expect(env).not.toContain(OTHER_SIGNING_SECRET);

      // Skipping is said plainly: in the terminal (Enter), and with --yes unless --slack-verify.
      const fresh = await folder();
      const skipper = new TerminalSession(
        setupCommand(
          "--slack-api-url",
          app.api.apiUrl,
          "--slack-port",
          String(port),
          "--config",
          "skipped.yaml",
        ),
        { cwd: fresh, env: childEnv() },
      );
      sessions.push(skipper);
      await skipper.answer("Which platforms", `${KEY.space}${KEY.enter}`);
      await skipper.answer("Which model", `${KEY.down}${KEY.enter}`);
      await skipper.answer("How should Slack reach Switchboard?", `${KEY.down}${KEY.enter}`);
      await skipper.answer(
        "The public HTTPS URL Slack should call",
        "https://bots.example.com/slack/events\r",
      );
      await skipper.answer("Bot User OAuth Token", `${BOT_TOKEN}\r`);
      await skipper.answer("Signing Secret", `${OTHER_SIGNING_SECRET}\r`);
      await skipper.answer("Waiting for Slack's signed request", KEY.enter);
      await skipper.expect("skipped — the signing secret was NOT checked");
      await skipper.expect("Done.");
      expect(await skipper.exited).toBe(0);
      const scripted = testContext({
        cwd: fresh,
        env: { SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN, SWITCHBOARD_SLACK_SIGNING_SECRET: APP_SIGNING_SECRET },
      });
      const flags = ["--platforms", "slack", "--slack-mode", "http", "--slack-api-url", app.api.apiUrl];
      const url = [
        "--slack-request-url",
        "https://bots.example.com/slack/events",
        "--config",
        "scripted.yaml",
      ];
      expect(await runCli(["setup", "--yes", ...flags, ...url], scripted.context)).toBe(0);
      expect(scripted.stdout.text).toContain("skipped — the signing secret was NOT checked");
      // --slack-verify waits for Slack's request, and checks it.
      const verifying = testContext({
        cwd: fresh,
        env: { SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN, SWITCHBOARD_SLACK_SIGNING_SECRET: APP_SIGNING_SECRET },
      });
      const verified = runCli(
        ["setup", "--yes", "--force", ...flags, ...url, "--slack-port", String(port), "--slack-verify"],
        verifying.context,
      );
      expect(await enterRequestUrl(app, `http://127.0.0.1:${port}/slack/events`)).toEqual({
        verified: true,
        status: 200,
      });
      expect(await verified).toBe(0);
      expect(verifying.stdout.text).toContain("the signing secret matches");
    } finally {
      await app.close();
    }
  }, 120_000);

  it("--yes sets up from flags and the environment, adds a platform to an existing file, and asks before replacing", async () => {
    const cwd = await folder();
    const run = (flags: string[], env: Record<string, string>) => {
      const context = testContext({ cwd, env });
      return runCli(["setup", "--yes", ...flags], context.context).then((code) => ({ code, ...context }));
    };
    const first = await run(
      ["--platforms", "discord", "--model", "offline", "--discord-api-url", discord.apiUrl],
      { SWITCHBOARD_DISCORD_TOKEN: discord.token },
    );
    expect(first.stdout.text).toContain("MESSAGE CONTENT INTENT is on");
    expect(first.code).toBe(0);
    let config = parse(await readFile(join(cwd, "switchboard.yaml"), "utf8")) as Record<string, unknown>;
    expect(config.discord).toEqual({ globalCommands: true, apiUrl: discord.apiUrl });
    expect(discord.desk.commands.get("global")?.length).toBeGreaterThan(5);

    // A second run adds Matrix; Discord's section and token stay.
    const second = await run(
      ["--platforms", "matrix", "--homeserver", synapse.url, "--matrix-user", "switchboard"],
      {
        SWITCHBOARD_MATRIX_PASSWORD: bot.password,
      },
    );
    expect(second.code).toBe(0);
    config = parse(await readFile(join(cwd, "switchboard.yaml"), "utf8")) as Record<string, unknown>;
    expect(config.discord).toEqual({ globalCommands: true, apiUrl: discord.apiUrl });
    expect(config.matrix).toMatchObject({ homeserverUrl: synapse.url, userId: bot.userId });
    const env = await readFile(join(cwd, "switchboard.env"), "utf8");
    expect(env).toContain(`SWITCHBOARD_DISCORD_TOKEN=${discord.token}`);
    expect(env).toContain("SWITCHBOARD_MATRIX_ACCESS_TOKEN=");
    expect(env).not.toContain(bot.password);

    // Discord again, without --force: the existing section is kept.
    const third = await run(["--platforms", "discord", "--discord-api-url", discord.apiUrl], {});
    expect(third.stdout.text).toContain("kept the discord: section");
    // A missing answer is named, and nothing is written.
    const fourth = await run(["--platforms", "matrix", "--force"], {});
    expect(fourth.code).toBe(1);
    expect(fourth.stdout.text).toContain("--yes: give --homeserver or SWITCHBOARD_MATRIX_HOMESERVER");
    // A Slack token missing a required scope is refused with the scopes to add.
    const narrow = await FakeSlack.start({ transport: "socket", scopes: ["chat:write", "commands"] });
    try {
      const fifth = await run(["--platforms", "slack", "--slack-api-url", narrow.api.apiUrl], {
        SWITCHBOARD_SLACK_BOT_TOKEN: BOT_TOKEN,
        SWITCHBOARD_SLACK_APP_TOKEN: APP_TOKEN,
      });
      expect(fifth.code).toBe(1);
      expect(fifth.stdout.text).toContain(
        "missing the scopes app_mentions:read, channels:history, im:history",
      );
    } finally {
      await narrow.close();
    }
    config = parse(await readFile(join(cwd, "switchboard.yaml"), "utf8")) as Record<string, unknown>;
    expect(config.slack).toBeUndefined();
  }, 90_000);

  it("writes nothing when the person cancels, or when Discord's Message Content intent is off", async () => {
    const cwd = await folder();
    const session = new TerminalSession(setupCommand(), { cwd, env: childEnv() });
    sessions.push(session);
    await session.answer("Which platforms", "\u0003"); // Ctrl-C
    await session.expect("setup cancelled");
    expect(await session.exited).toBe(1);

    const closed = await FakeDiscord.start({ messageContentIntent: false });
    try {
      const run = testContext({ cwd, env: { SWITCHBOARD_DISCORD_TOKEN: closed.token } });
      const code = await runCli(
        ["setup", "--yes", "--platforms", "discord", "--discord-api-url", closed.apiUrl],
        run.context,
      );
      expect(code).toBe(1);
      expect(run.stdout.text).toContain("MESSAGE CONTENT INTENT is off for Switchboard");
    } finally {
      await closed.close();
    }
    await expect(stat(join(cwd, "switchboard.yaml"))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(cwd, "switchboard.env"))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it("refuses to run the questions without a terminal, and names --yes", async () => {
    const context = testContext({ cwd: await folder(), env: {} });
    expect(await runCli(["setup"], context.context)).toBe(2);
    expect(context.stderr.text).toContain("switchboard setup --yes");
  });
});
