/**
 * The configuration reference (docs/reference/configuration.md), generated from the zod schema the
 * CLI validates switchboard.yaml with, so the page cannot drift from the code: every key, its type,
 * default, environment override and `.describe()` text. The schema is read through zod's own JSON
 * Schema export (input side: what an operator writes, defaults included).
 */
import { modelSpecSchema } from "@switchboard/core/config";
import { z } from "zod";
import { ENV_OVERRIDES, type EnvOverride, overridePath } from "../env-overrides.ts";
import { CONFIG_SECTIONS, configFileSchema } from "../schema.ts";

/** The JSON Schema shapes zod emits that the reference reads. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly format?: string;
}

/** One key of the file, as one row of the reference. */
export interface ReferenceRow {
  /** `engine.lockTtlSeconds`, `team.specialists[].name`, `mcp.servers[].command`. */
  readonly key: string;
  readonly type: string;
  /** As written in YAML; undefined when the key has no default. */
  readonly default: string | undefined;
  readonly required: boolean;
  readonly description: string | undefined;
  /** Only for some alternatives of a union (`transport: stdio`). */
  readonly when: string | undefined;
  readonly env: readonly string[];
}

const toJsonSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;

/** Every key of switchboard.yaml, in the order of the schema, parents before their children. */
export function configReferenceRows(): ReferenceRow[] {
  const root = toJsonSchema(configFileSchema);
  const envByKey = new Map<string, string[]>();
  for (const override of ENV_OVERRIDES) {
    const key = envKey(override);
    envByKey.set(key, [...(envByKey.get(key) ?? []), override.variable]);
  }
  const rows: ReferenceRow[] = [];
  const visit = (schema: JsonSchema, key: string, required: boolean, when: string | undefined): void => {
    rows.push({
      key,
      // The model is a string (`openai:gpt-4o-mini`) or the object whose fields follow.
      type: key === "model" ? "string or object" : typeOf(schema),
      default: schema.default === undefined ? undefined : yamlInline(schema.default),
      required,
      description: schema.description,
      when,
      env: envByKey.get(key) ?? [],
    });
    for (const child of childrenOf(schema, key)) visit(child.schema, child.key, child.required, child.when);
  };
  for (const [name, schema] of Object.entries(root.properties ?? {})) {
    // The model key takes a string or an object: its object form is documented from core's schema.
    const documented = name === "model" ? { ...toJsonSchema(modelSpecSchema), ...schema } : schema;
    visit(documented, name, false, undefined);
  }
  return rows;
}

/** The file's key an environment variable fills (provider API keys fill every model's `apiKey`). */
function envKey(override: EnvOverride): string {
  return override.target.kind === "provider-key" ? "model.apiKey" : overridePath(override.target);
}

interface Child {
  readonly key: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
  readonly when: string | undefined;
}

function childrenOf(schema: JsonSchema, key: string): Child[] {
  if (schema.properties) {
    return Object.entries(schema.properties).map(([name, child]) => ({
      key: `${key}.${name}`,
      schema: child,
      required: schema.required?.includes(name) ?? false,
      when: undefined,
    }));
  }
  if (schema.items && isObjectLike(schema.items)) return childrenOf(schema.items, `${key}[]`);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives?.every((alternative) => alternative.properties)) return unionChildren(alternatives, key);
  // A shorthand or an object (`encryption: true`, or its settings): the object's fields.
  const objects = alternatives?.filter((alternative) => alternative.properties) ?? [];
  if (objects.length === 1 && objects[0]) return childrenOf(objects[0], key);
  return [];
}

function isObjectLike(schema: JsonSchema): boolean {
  return Boolean(schema.properties) || Boolean((schema.oneOf ?? schema.anyOf)?.every((a) => a.properties));
}

/**
 * The fields of an object union (MCP servers by `transport`, models by `provider`), each once; a
 * field only some alternatives have says which (`transport: stdio`).
 */
function unionChildren(alternatives: readonly JsonSchema[], key: string): Child[] {
  const discriminator = Object.keys(alternatives[0]?.properties ?? {}).find((name) =>
    alternatives.every((alternative) => literalOf(alternative.properties?.[name]) !== undefined),
  );
  const byField = new Map<string, { schema: JsonSchema; in: JsonSchema[]; required: boolean }>();
  for (const alternative of alternatives) {
    for (const [name, child] of Object.entries(alternative.properties ?? {})) {
      const entry = byField.get(name);
      const required = alternative.required?.includes(name) ?? false;
      if (entry) {
        entry.in.push(alternative);
        entry.required &&= required;
      } else byField.set(name, { schema: child, in: [alternative], required });
    }
  }
  return [...byField].map(([name, entry]) => {
    if (name === discriminator) {
      const values = alternatives.map((alternative) => literalOf(alternative.properties?.[name]));
      return {
        key: `${key}.${name}`,
        schema: { ...entry.schema, const: undefined, enum: values },
        required: true,
        when: undefined,
      };
    }
    const partial = discriminator !== undefined && entry.in.length < alternatives.length;
    return {
      key: `${key}.${name}`,
      schema: entry.schema,
      required: entry.required && !partial,
      when: partial ? whenPresent(alternatives, entry.in, discriminator) : undefined,
    };
  });
}

/** `transport: stdio`, or `not with provider: offline` when that is shorter. */
function whenPresent(
  all: readonly JsonSchema[],
  present: readonly JsonSchema[],
  discriminator: string,
): string {
  const value = (alternative: JsonSchema) => literalOf(alternative.properties?.[discriminator]);
  const absent = all.filter((alternative) => !present.includes(alternative));
  return absent.length < present.length
    ? `not with ${discriminator}: ${absent.map(value).join(", ")}`
    : `${discriminator}: ${present.map(value).join(", ")}`;
}

function literalOf(schema: JsonSchema | undefined): string | undefined {
  if (schema?.const !== undefined) return String(schema.const);
  if (schema?.enum?.length === 1) return String(schema.enum[0]);
  return undefined;
}

/** A short, readable type: `integer, 1 to 3600`, `"queue" | "collect"`, `list of string`. */
export function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    if (alternatives.every((alternative) => alternative.properties)) return "object";
    return [...new Set(alternatives.map(typeOf))].join(" or ");
  }
  const type = typeof schema.type === "string" ? schema.type : schema.type?.join(" or ");
  switch (type) {
    case "integer":
    case "number":
      return `${type}${range(schema)}`;
    case "string":
      return `string${stringDetail(schema)}`;
    case "array":
      return `list of ${schema.items ? plural(typeOf(schema.items)) : "anything"}${schema.minItems ? ` (at least ${schema.minItems})` : ""}`;
    case "object":
      if (schema.properties) return "object";
      if (typeof schema.additionalProperties === "object")
        return `map of name → ${typeOf(schema.additionalProperties)}`;
      return "object";
    case undefined:
      return "any";
    default:
      return type;
  }
}

function plural(type: string): string {
  return /^(string|integer|number|boolean|object)\b/.test(type) ? type.replace(/^(\w+)/, "$1s") : type;
}

function range(schema: JsonSchema): string {
  const low =
    schema.exclusiveMinimum !== undefined
      ? `> ${schema.exclusiveMinimum}`
      : schema.minimum !== undefined
        ? `≥ ${schema.minimum}`
        : undefined;
  const safe = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER;
  const high =
    schema.exclusiveMaximum !== undefined
      ? `< ${schema.exclusiveMaximum}`
      : safe
        ? `≤ ${schema.maximum}`
        : undefined;
  if (schema.minimum !== undefined && safe) return `, ${schema.minimum} to ${schema.maximum}`;
  const parts = [low, high].filter((part) => part !== undefined);
  return parts.length > 0 ? `, ${parts.join(", ")}` : "";
}

function stringDetail(schema: JsonSchema): string {
  if (schema.format === "uri") return " (URL)";
  if (schema.pattern) return ` matching \`${schema.pattern}\``;
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    return `, ${schema.minLength} to ${schema.maxLength} characters`;
  if (schema.minLength !== undefined && schema.minLength > 1)
    return `, at least ${schema.minLength} characters`;
  if (schema.maxLength !== undefined) return `, at most ${schema.maxLength} characters`;
  return "";
}

/** A value as it would be written in switchboard.yaml's flow style. */
export function yamlInline(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(yamlInline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([k, v]) => `${k}: ${yamlInline(v)}`).join(", ")} }`;
  }
  return String(value);
}

const TOP_LEVEL = "Top-level keys";

/** The whole page, Markdown, byte for byte what docs/reference/configuration.md must hold. */
export function renderConfigReference(rows: readonly ReferenceRow[] = configReferenceRows()): string {
  const groups = new Map<string, ReferenceRow[]>();
  for (const row of rows) {
    const top = row.key.split(/[.[]/)[0] ?? row.key;
    const hasChildren = rows.some(
      (other) => other.key.startsWith(`${top}.`) || other.key.startsWith(`${top}[`),
    );
    const group = hasChildren ? top : TOP_LEVEL;
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  const lines = [
    "<!-- Generated from packages/cli/src/config/schema.ts by `pnpm docs:config`; CI fails when it is stale. Do not edit by hand. -->",
    "",
    "# Configuration reference",
    "",
    "Every key of `switchboard.yaml`, generated from the schema Switchboard validates the file with.",
    "The file is optional: without it Switchboard runs on the built-in example (`switchboard.example.yaml`:",
    "offline model, embedded SQLite, a supervisor with `billing`, `tech_support` and `scheduling`",
    "specialists), which is what `switchboard init` writes. A file of your own starts from the defaults below.",
    "A wrong value or an unknown key stops start-up with a line naming the key and what was expected:",
    "",
    "```",
    'switchboard.yaml: engine.midRunPolicy: expected one of queue | collect | interrupt, got "later"',
    "```",
    "",
    "Secrets belong in the environment: a variable named after **Env:** wins over the file (blank",
    "variables are ignored), and a platform's secrets only fill a section the file has.",
    "",
    "A key marked *required* must be written when its section is present. `[]` in a key stands for",
    "each element of a list (`team.specialists[].name`).",
    "",
  ];
  const order = [
    TOP_LEVEL,
    ...Object.keys(CONFIG_SECTIONS).filter((name) => groups.has(name) && name !== TOP_LEVEL),
  ];
  for (const group of order) {
    const groupRows = groups.get(group);
    if (!groupRows) continue;
    lines.push(`## ${group === TOP_LEVEL ? group : `\`${group}\``}`, "");
    lines.push("| key | default | type — meaning |", "| --- | --- | --- |");
    for (const row of groupRows) lines.push(tableRow(row));
    lines.push("");
  }
  lines.push("## Environment variables", "");
  lines.push("| variable | fills | meaning |", "| --- | --- | --- |");
  for (const override of ENV_OVERRIDES)
    lines.push(`| \`${override.variable}\` | \`${envKey(override)}\` | ${cell(override.description)} |`);
  lines.push("");
  return lines.join("\n");
}

/** Three columns, so the meaning has room: the type and the environment variable go with it. */
function tableRow(row: ReferenceRow): string {
  const env = row.env.length > 0 ? ` Env: ${row.env.map((variable) => `\`${variable}\``).join(", ")}.` : "";
  const meaning = [`*${row.type}*${row.when ? ` (${row.when})` : ""} —`, row.description ?? ""].join(" ");
  const defaultText = row.default !== undefined ? `\`${row.default}\`` : row.required ? "*required*" : "—";
  return `| \`${row.key}\` | ${cell(defaultText)} | ${cell(meaning + env)} |`;
}

/**
 * Table cells cannot hold a bare `|` or a line break; a `<` outside code would open an HTML tag
 * (the docs site compiles pages as Vue templates), so it is written as `&lt;` there.
 */
export function cell(text: string): string {
  const escaped = text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return escaped
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/</g, "&lt;")))
    .join("");
}

/** Keys whose meaning the schema does not say: the reference would show them bare. */
export function undescribedKeys(rows: readonly ReferenceRow[] = configReferenceRows()): string[] {
  return rows.filter((row) => !row.description).map((row) => row.key);
}
