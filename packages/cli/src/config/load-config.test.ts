import { describe, expect, it } from "vitest";
import { useConfigFolder } from "./config-test-support.ts";
import { loadConfig } from "./load-config.ts";

const { dir, loadText, problemsOf } = useConfigFolder();

describe("loadConfig: a good file", () => {
  it("reads every section and fills defaults for the rest", async () => {
    const { config, source, fileExists } = await loadText(
      [
        "model: ollama:llama3.1:8b",
        "store: redis://127.0.0.1:6379",
        "logLevel: debug",
        "engine:",
        "  midRunPolicy: collect",
        "  commandPrefixes: ['!']",
        "team:",
        "  specialists:",
        "    - { name: billing, description: invoices and refunds, prompt: You are billing. }",
        "routing: { sticky: false }",
        "limits: { maxIterations: 7 }",
        "",
      ].join("\n"),
    );
    expect(source).toBe("switchboard.yaml");
    expect(fileExists).toBe(true);
    expect(config.model).toEqual({ provider: "ollama", model: "llama3.1:8b" });
    expect(config.store).toBe("redis://127.0.0.1:6379");
    expect(config.checkpoints).toBe("redis://127.0.0.1:6379");
    expect(config.logLevel).toBe("debug");
    expect(config.engine).toEqual({
      commandPrefixes: ["!"],
      midRunPolicy: "collect",
      lockTtlSeconds: 30,
      typingDelayMs: 800,
      maxConcurrentTurns: 2_000,
      eventLoopDelayTargetMs: 40,
    });
    expect(config.team.specialists.map((s) => s.name)).toEqual(["billing"]);
    expect(config.team.supervisor.prompt).toMatch(/supervisor/);
    expect(config.routing).toEqual({ sticky: false });
    expect(config.limits).toEqual({ maxIterations: 7, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 });
    expect(config.discord).toBeUndefined();
  });

  it("treats an empty file as all defaults", async () => {
    const { config } = await loadText("# nothing yet\n");
    expect(config.model).toEqual({ provider: "offline" });
    expect(config.store).toBe("sqlite://./data/switchboard.db");
    expect(config.engine.midRunPolicy).toBe("queue");
    expect(config.routing.sticky).toBe(true);
    expect(config.limits).toEqual({ maxIterations: 20, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 });
  });

  it("enables a platform whose section is present, even with nothing under it", async () => {
    const { config } = await loadText("discord:\n", { SWITCHBOARD_DISCORD_TOKEN: "discord-token" });
    expect(config.discord).toMatchObject({ token: "discord-token", autoThread: true });
    expect(config.slack).toBeUndefined();
  });

  it("keeps a separate checkpoints URL", async () => {
    const { config } = await loadText("checkpoints: postgres://postgres@127.0.0.1/test\n");
    expect(config.store).toBe("sqlite://./data/switchboard.db");
    expect(config.checkpoints).toBe("postgres://postgres@127.0.0.1/test");
  });
});

describe("loadConfig: without a file", () => {
  it("runs on the example configuration: offline model, embedded SQLite, no platform (console)", async () => {
    const { config, fileExists, source } = await loadConfig({ cwd: dir(), env: {} });
    expect(fileExists).toBe(false);
    expect(source).toMatch(/^built-in defaults \(no switchboard\.yaml/);
    expect(config.model).toEqual({ provider: "offline" });
    expect(config.store).toBe("sqlite://./data/switchboard.db");
    expect(config.checkpoints).toBe("sqlite://./data/switchboard.db");
    expect([config.matrix, config.discord, config.slack]).toEqual([undefined, undefined, undefined]);
    expect(config.team.specialists.map((s) => s.name)).toEqual(["billing", "tech_support", "scheduling"]);
  });

  it("fails when a file named with --config is missing", async () => {
    await expect(loadConfig({ cwd: dir(), env: {}, path: "conf/bot.yaml" })).rejects.toThrow(
      "conf/bot.yaml: file not found (create one with: switchboard init --config conf/bot.yaml)",
    );
  });
});

describe("loadConfig: bad values name the key path and what was expected", () => {
  const cases: [string, string, string][] = [
    [
      "an unknown mid-run policy",
      "engine:\n  midRunPolicy: later\n",
      'switchboard.yaml: engine.midRunPolicy: expected one of queue | collect | interrupt, got "later"',
    ],
    [
      "text where a number belongs",
      "engine:\n  lockTtlSeconds: soon\n",
      'switchboard.yaml: engine.lockTtlSeconds: expected a number, got "soon"',
    ],
    [
      "a fraction where a whole number belongs",
      "limits:\n  maxIterations: 2.5\n",
      "switchboard.yaml: limits.maxIterations: expected a whole number, got 2.5",
    ],
    [
      "a number below the minimum",
      "engine:\n  lockTtlSeconds: 0\n",
      "switchboard.yaml: engine.lockTtlSeconds: expected a number at least 1, got 0",
    ],
    [
      "zero where a positive number belongs",
      "limits:\n  wallTimeSeconds: 0\n",
      "switchboard.yaml: limits.wallTimeSeconds: expected a number more than 0, got 0",
    ],
    [
      "an empty list",
      "engine:\n  commandPrefixes: []\n",
      "switchboard.yaml: engine.commandPrefixes: expected at least 1 item, got a list (0 items)",
    ],
    [
      "an empty list item",
      "engine:\n  commandPrefixes: ['']\n",
      'switchboard.yaml: engine.commandPrefixes[0]: expected at least 1 character, got ""',
    ],
    [
      "a list where a mapping belongs",
      "engine: [queue]\n",
      "switchboard.yaml: engine: expected a mapping (key: value lines), got a list (1 item)",
    ],
    [
      "text where true/false belongs",
      "routing:\n  sticky: sometimes\n",
      'switchboard.yaml: routing.sticky: expected true or false, got "sometimes"',
    ],
    [
      "an unknown log level",
      "logLevel: loud\n",
      'switchboard.yaml: logLevel: expected one of debug | info | warn | error, got "loud"',
    ],
    [
      "an unknown store scheme",
      "store: mysql://db\n",
      "switchboard.yaml: store: expected sqlite://./relative/path.db",
    ],
    [
      "an unknown provider in the object form",
      "model:\n  provider: mistral\n  model: large\n",
      'switchboard.yaml: model: invalid model {"provider":"mistral","model":"large"}: provider: expected one of offline | openai | anthropic | ollama | openai-compatible, got "mistral"',
    ],
    [
      "a model without provider",
      "model: gpt-4o\n",
      'switchboard.yaml: model: invalid model "gpt-4o": no provider given; did you mean "openai:gpt-4o"?',
    ],
    [
      "an agent model with an unknown provider",
      "team:\n  supervisor:\n    prompt: hi\n    model: acme:big\n",
      'switchboard.yaml: team.supervisor.model: invalid model "acme:big": unknown provider "acme"',
    ],
    [
      "a specialist without description",
      "team:\n  specialists:\n    - { name: billing, prompt: p }\n",
      "switchboard.yaml: team.specialists[0].description: required (expected text)",
    ],
    [
      "a reserved agent name",
      "team:\n  specialists:\n    - { name: supervisor, description: d, prompt: p }\n",
      "switchboard.yaml: team.specialists[0].name: the name supervisor is reserved",
    ],
    [
      "an unknown top-level key",
      "memroy: {}\n",
      "switchboard.yaml: memroy: unknown key (known keys here: model, store, checkpoints, logLevel, logLevels, logFormat, role, scaleOut, engine, modelEndpoints, team, routing, limits, memory, attachments, requests, access, tasks, schedules, defaults, steps, usage, http, tools, mcp, matrix, discord, slack)",
    ],
    [
      "a scaled-out role on the embedded store",
      "role: worker\n",
      'switchboard.yaml: store: role worker needs a Redis store shared by the cluster (redis://…), got "sqlite://./data/switchboard.db"',
    ],
    [
      "a scaled-out role with checkpoints only one machine reaches",
      "role: ingress\nstore: redis://localhost:6379\ncheckpoints: sqlite://./cp.db\n",
      'switchboard.yaml: checkpoints: role ingress needs checkpoints every worker reaches (redis://… or postgres://…), got "sqlite://./cp.db"',
    ],
    ["an unknown role", "role: leader\n", "switchboard.yaml: role:"],
    [
      "an MCP server without a transport",
      "mcp:\n  servers:\n    - name: files\n      command: npx\n",
      "switchboard.yaml: mcp.servers[0].transport: expected transport: stdio (with command) or transport: http (with url)",
    ],
    [
      "an unknown nested key",
      "engine:\n  lockTTL: 5\n",
      "switchboard.yaml: engine.lockTTL: unknown key (known keys here: commandPrefixes, midRunPolicy, lockTtlSeconds, typingDelayMs, maxConcurrentTurns, eventLoopDelayTargetMs)",
    ],
    [
      "a list as the whole file",
      "- model\n",
      "switchboard.yaml: expected a mapping of sections (model:, store:, team:, …) at the top level, got a list (1 item)",
    ],
    ["broken YAML", "engine:\n  midRunPolicy: [queue\n", "switchboard.yaml:3:1: not valid YAML:"],
    [
      "a duplicated key",
      "logLevel: info\nlogLevel: debug\n",
      "switchboard.yaml:2:1: not valid YAML: Map keys must be unique",
    ],
  ];
  it.each(cases)("%s", async (_name, text, expected) => {
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it("reports every problem, not only the first", async () => {
    const problems = await problemsOf(
      "engine:\n  midRunPolicy: later\nlimits:\n  maxIterations: 0\nextra: 1\n",
    );
    expect(problems).toEqual([
      'switchboard.yaml: engine.midRunPolicy: expected one of queue | collect | interrupt, got "later"',
      "switchboard.yaml: limits.maxIterations: expected a number more than 0, got 0",
      expect.stringMatching(/^switchboard\.yaml: extra: unknown key/),
    ]);
  });
});

describe("loadConfig: platform sections use the adapters' own schemas", () => {
  it("fills an adapter's defaults", async () => {
    const { config } = await loadText("slack:\n  appToken: xapp-1\n", {
      SWITCHBOARD_SLACK_BOT_TOKEN: "xoxb-1",
    });
    expect(config.slack).toMatchObject({
      botToken: "xoxb-1",
      appToken: "xapp-1",
      slashCommand: "/switchboard",
    });
  });

  it.each([
    [
      "a missing secret, naming its variable",
      "discord:\n",
      "switchboard.yaml: discord.token: required (expected text); or set SWITCHBOARD_DISCORD_TOKEN in the environment",
    ],
    [
      "an unknown key in a platform section",
      "discord:\n  token: t\n  tokn: t\n",
      "switchboard.yaml: discord.tokn: unknown key (known keys here: token, autoThread,",
    ],
    [
      "an adapter's own rule",
      "matrix:\n  homeserverUrl: https://matrix.example.org\n",
      "switchboard.yaml: matrix: set matrix.accessToken, or matrix.userId and matrix.password to log in",
    ],
    [
      "a bad value in a platform section",
      "slack:\n  botToken: xoxp-1\n  appToken: xapp-1\n",
      "switchboard.yaml: slack.botToken: botToken must be the Bot User OAuth Token (starts with xoxb-)",
    ],
  ])("%s", async (_name, text, expected) => {
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });
});
