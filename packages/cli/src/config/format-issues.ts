import { z } from "zod";

/** One problem found in the configuration, already worded for the operator. */
export interface ConfigProblem {
  /** `engine.midRunPolicy`, `team.specialists[0].name`; empty for the file as a whole. */
  readonly path: string;
  readonly problem: string;
}

type PathKey = PropertyKey;

/** `engine.commandPrefixes[0]` from `["engine", "commandPrefixes", 0]`. */
export function renderPath(path: readonly PathKey[]): string {
  let rendered = "";
  for (const key of path) {
    if (typeof key === "number") rendered += `[${key}]`;
    else rendered += rendered === "" ? String(key) : `.${String(key)}`;
  }
  return rendered;
}

/** How a value the operator wrote reads back to them: strings quoted, YAML mappings and lists named. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `a list (${value.length} item${value.length === 1 ? "" : "s"})`;
  if (typeof value === "object") return "a mapping";
  return String(value);
}

const EXPECTED_TYPE: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  array: "a list",
  record: "a mapping (key: value lines)",
};

/**
 * Turns zod issues into `path: expected …, got …` lines. Issues must come from a parse with
 * `reportInput: true`, so that every line can quote what was written.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], schema: z.ZodType): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, issue.path);
      const hint = known.length > 0 ? ` (known keys here: ${known.join(", ")})` : "";
      for (const key of issue.keys)
        problems.push({ path: renderPath([...issue.path, key]), problem: `unknown key${hint}` });
      continue;
    }
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // Report the branch that got furthest rather than zod's "invalid input".
      const deepest = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
      problems.push(...describeIssues(deepest, schema));
      continue;
    }
    problems.push({ path: renderPath(issue.path), problem: describeIssue(issue) });
  }
  return problems;
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const got = `got ${describeValue(issue.input)}`;
  switch (issue.code) {
    case "invalid_type": {
      const expected = EXPECTED_TYPE[issue.expected] ?? issue.expected;
      return issue.input === undefined ? `required (expected ${expected})` : `expected ${expected}, ${got}`;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `expected ${String(issue.values[0])}, ${got}`
        : `expected one of ${issue.values.map(String).join(" | ")}, ${got}`;
    case "too_small":
      return `expected ${bound(issue.origin, issue.inclusive ? "at least" : "more than", issue.minimum)}, ${got}`;
    case "too_big":
      return `expected ${bound(issue.origin, issue.inclusive ? "at most" : "less than", issue.maximum)}, ${got}`;
    case "invalid_format":
      return issue.format === "url" ? `expected a URL, ${got}` : `${issue.message}, ${got}`;
    default:
      return issue.message;
  }
}

function bound(origin: string, relation: string, limit: number | bigint): string {
  switch (origin) {
    case "string":
      return `${relation} ${limit} character${limit === 1 ? "" : "s"}`;
    case "array":
    case "set":
      return `${relation} ${limit} item${limit === 1 ? "" : "s"}`;
    default:
      return `a number ${relation} ${limit}`;
  }
}

/** The keys the schema accepts at `path`, so an unknown key's message can list the right ones. */
export function knownKeysAt(schema: z.ZodType, path: readonly PathKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    if (current instanceof z.ZodObject && typeof key === "string") current = unwrap(current.shape[key]);
    else if (current instanceof z.ZodArray && typeof key === "number")
      current = unwrap(current.element as unknown as z.ZodType);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueType as unknown as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let guard = 0; current && guard < 20; guard++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodReadonly
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      // `preprocess` puts the schema that holds the keys on the way out; `.transform` on the way in.
      const input = current.in as z.ZodType;
      current = (input instanceof z.ZodTransform ? current.out : input) as z.ZodType;
    } else {
      return current;
    }
  }
  return current;
}
