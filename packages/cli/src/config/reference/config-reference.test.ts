import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../env-overrides.ts";
import { CONFIG_SECTIONS } from "../schema.ts";
import {
  cell,
  configReferenceRows,
  type JsonSchema,
  renderConfigReference,
  typeOf,
  undescribedKeys,
  yamlInline,
} from "./config-reference.ts";

describe("the configuration reference", () => {
  const rows = configReferenceRows();
  const row = (key: string) => rows.find((candidate) => candidate.key === key);

  it("has a row for every top-level key and every key of a section", () => {
    for (const section of Object.keys(CONFIG_SECTIONS)) expect(row(section), section).toBeDefined();
    for (const key of [
      "engine.lockTtlSeconds",
      "team.specialists[].name",
      "mcp.servers[].command",
      "mcp.servers[].url",
      "slack.botToken",
      "matrix.homeserverUrl",
      "usage.limits.perUserPerDay.costUsd",
      "model.baseUrl",
    ])
      expect(row(key), key).toBeDefined();
  });

  it("says what every key means (a `.describe()` text in the schema)", () => {
    expect(undescribedKeys(rows)).toEqual([]);
  });

  it("gives types, defaults and the variant a field belongs to", () => {
    expect(row("engine.lockTtlSeconds")).toMatchObject({ type: "integer, 1 to 3600", default: "30" });
    expect(row("engine.midRunPolicy")).toMatchObject({
      type: '"queue" | "collect" | "interrupt"',
      default: '"queue"',
    });
    expect(row("engine.commandPrefixes")?.default).toBe('["/", "!"]');
    expect(row("slack.botToken")).toMatchObject({ required: true, default: undefined });
    expect(row("mcp.servers[].command")).toMatchObject({ when: "transport: stdio", required: false });
    expect(row("mcp.servers[].transport")).toMatchObject({ type: '"stdio" | "http"', required: true });
    expect(row("model.apiKey")?.when).toBe("not with provider: offline");
    expect(row("slack.streaming")).toMatchObject({ type: 'boolean or "on" | "off"', default: '"on"' });
  });

  it("names the environment variable that fills each key, every variable once", () => {
    expect(row("store")?.env).toEqual(["SWITCHBOARD_STORE_URL"]);
    expect(row("slack.appToken")?.env).toEqual(["SWITCHBOARD_SLACK_APP_TOKEN"]);
    expect(row("model.apiKey")?.env).toEqual(["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]);
    const named = rows.flatMap((candidate) => candidate.env);
    expect(named.sort()).toEqual(ENV_OVERRIDES.map((override) => override.variable).sort());
  });

  it("renders one table per section, a bare | escaped inside cells", () => {
    const page = renderConfigReference(rows);
    expect(page).toContain("## `engine`\n");
    expect(page).toContain(
      '| `engine.midRunPolicy` | `"queue"` | *"queue" \\| "collect" \\| "interrupt"* — ',
    );
    expect(page).toContain('| `store` | `"sqlite://./data/switchboard.db"` | *string* — ');
    expect(page).toContain("Env: `SWITCHBOARD_STORE_URL`.");
    expect(page).toContain("## Environment variables\n");
  });
});

describe("cell", () => {
  it("keeps `<` inside code and escapes it outside, where it would open a tag on the docs site", () => {
    expect(cell("delete with /forget <id> or `/forget <id>`")).toBe(
      "delete with /forget &lt;id> or `/forget <id>`",
    );
  });
});

describe("typeOf", () => {
  it.each<[JsonSchema, string]>([
    [{ type: "integer", minimum: 1, maximum: 600 }, "integer, 1 to 600"],
    [{ type: "number", exclusiveMinimum: 0 }, "number, > 0"],
    [{ type: "integer", exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER }, "integer, > 0"],
    [{ type: "string", format: "uri" }, "string (URL)"],
    [{ type: "array", items: { type: "string" } }, "list of strings"],
    [{ type: "object", additionalProperties: { type: "string" } }, "map of name → string"],
    [
      { anyOf: [{ type: "boolean" }, { type: "array", items: { type: "string" } }] },
      "boolean or list of strings",
    ],
    [{}, "any"],
  ])("%j → %s", (schema, expected) => {
    expect(typeOf(schema)).toBe(expected);
  });
});

describe("yamlInline", () => {
  it.each<[unknown, string]>([
    ["queue", '"queue"'],
    [30, "30"],
    [["/", "!"], '["/", "!"]'],
    [{}, "{}"],
    [{ prompt: "hi", tools: [] }, '{ prompt: "hi", tools: [] }'],
  ])("%j → %s", (value, expected) => {
    expect(yamlInline(value)).toBe(expected);
  });
});
