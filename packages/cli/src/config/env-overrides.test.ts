import { describe, expect, it } from "vitest";
import { useConfigFolder } from "./config-test-support.ts";

const { loadText, problemsOf } = useConfigFolder();

describe("loadConfig: environment overrides", () => {
  it("lets the environment replace the store, checkpoints, log level and model", async () => {
    const { config, appliedEnv } = await loadText("store: sqlite://./a.db\nlogLevel: info\n", {
      SWITCHBOARD_STORE_URL: "redis://127.0.0.1:6379/2",
      SWITCHBOARD_CHECKPOINTS_URL: "postgres://postgres@127.0.0.1/test",
      SWITCHBOARD_LOG_LEVEL: "warn",
      SWITCHBOARD_MODEL: "anthropic:claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "sk-ant-test",
    });
    expect(config.store).toBe("redis://127.0.0.1:6379/2");
    expect(config.checkpoints).toBe("postgres://postgres@127.0.0.1/test");
    expect(config.logLevel).toBe("warn");
    expect(config.model).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKey: "sk-ant-test",
    });
    expect(appliedEnv).toEqual([
      "SWITCHBOARD_MODEL",
      "ANTHROPIC_API_KEY",
      "SWITCHBOARD_STORE_URL",
      "SWITCHBOARD_CHECKPOINTS_URL",
      "SWITCHBOARD_LOG_LEVEL",
    ]);
  });

  it("takes the provider's API key from the environment, over the file", async () => {
    const { config, providerKeys } = await loadText(
      "model: { provider: openai, model: gpt-4o-mini, apiKey: from-file }\n",
      {
        OPENAI_API_KEY: "from-env",
      },
    );
    expect(config.model).toMatchObject({ provider: "openai", apiKey: "from-env" });
    expect(providerKeys).toEqual({ openai: "from-env" });
  });

  it("keeps the file's API key when the environment has none, and offers it to agents of that provider", async () => {
    const { config, providerKeys } = await loadText(
      "model: { provider: openai, model: gpt-4o-mini, apiKey: from-file }\n",
    );
    expect(config.model).toMatchObject({ apiKey: "from-file" });
    expect(providerKeys).toEqual({ openai: "from-file" });
  });

  it("ignores blank variables", async () => {
    const { config, appliedEnv } = await loadText("store: sqlite://./a.db\n", {
      SWITCHBOARD_STORE_URL: "  ",
    });
    expect(config.store).toBe("sqlite://./a.db");
    expect(appliedEnv).toEqual([]);
  });

  it("fills platform secrets into sections that are present, and only those", async () => {
    const { config, notices } = await loadText("team: {}\ndiscord:\n", {
      SWITCHBOARD_DISCORD_TOKEN: "discord-token",
      SWITCHBOARD_SLACK_BOT_TOKEN: "xoxb-1",
    });
    expect(config.discord).toMatchObject({ token: "discord-token" });
    expect(config.slack).toBeUndefined();
    expect(notices).toEqual([
      "SWITCHBOARD_SLACK_BOT_TOKEN is set, but switchboard.yaml has no slack: section, so Slack stays off",
    ]);
  });

  it("names the variable, not the file, when a value from the environment is wrong", async () => {
    const problems = await problemsOf("logLevel: info\n", { SWITCHBOARD_LOG_LEVEL: "loud" });
    expect(problems).toEqual([
      'SWITCHBOARD_LOG_LEVEL (logLevel): expected one of debug | info | warn | error, got "loud"',
    ]);
  });
});
