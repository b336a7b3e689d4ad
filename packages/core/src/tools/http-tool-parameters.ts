import { z } from "zod";

/** A tool's arguments as the model sees them and as calls are checked against: a JSON Schema object. */
export interface ParametersSchema {
  readonly type: "object";
  readonly properties: Record<string, Record<string, unknown>>;
  readonly required?: string[];
  readonly additionalProperties?: boolean | Record<string, unknown>;
  readonly [keyword: string]: unknown;
}

const FIELD_TYPES = ["string", "number", "integer", "boolean", "array", "object"] as const;

const jsonSchemaForm = z.looseObject({
  type: z.literal("object").describe("JSON Schema form: always `object`."),
  properties: z
    .record(z.string(), z.record(z.string(), z.unknown()))
    .describe("JSON Schema form: each argument's name and its JSON Schema."),
  required: z.array(z.string()).optional().describe("JSON Schema form: the arguments the model must send."),
  additionalProperties: z
    .union([z.boolean(), z.record(z.string(), z.unknown())])
    .optional()
    .describe("JSON Schema form: whether (or which) other arguments are allowed."),
});

/** `integer`, `string?` (optional): a field's type in the compact form. */
const compactType = z
  .string()
  .regex(
    new RegExp(`^(${FIELD_TYPES.join("|")})\\??$`),
    `a type (${FIELD_TYPES.join(", ")}), with ? after it for an optional field`,
  );

const compactField = z.union([
  compactType,
  z.strictObject({
    type: z.enum(FIELD_TYPES),
    description: z.string().optional(),
    enum: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(1)
      .optional(),
    items: z.record(z.string(), z.unknown()).optional(),
    optional: z.boolean().default(false),
  }),
]);

const compactForm = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), compactField);

/**
 * `parameters:` of an HTTP tool in switchboard.yaml: a JSON Schema object (`type: object` with
 * `properties`), or the compact field list (`city: string`, `days: integer?`,
 * `unit: { type: string, enum: [c, f], description: … }`). Both become one JSON Schema object;
 * fields are required unless marked optional, and unknown fields are refused.
 */
export const httpToolParametersSchema = z
  .union([jsonSchemaForm, compactForm], {
    error: () =>
      "expected a JSON Schema object (type: object, properties: …) or a field list such as { city: string, days: integer? }",
  })
  .transform((value): ParametersSchema => {
    const parsed = jsonSchemaForm.safeParse(value);
    if (parsed.success) return parsed.data as ParametersSchema;
    return fromCompactFields(compactForm.parse(value));
  });

function fromCompactFields(fields: z.output<typeof compactForm>): ParametersSchema {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (typeof field === "string") {
      const optional = field.endsWith("?");
      properties[name] = { type: optional ? field.slice(0, -1) : field };
      if (!optional) required.push(name);
      continue;
    }
    const { optional, ...schema } = field;
    properties[name] = Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));
    if (!optional) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/** The parameter names a tool takes, for find_tools' matching; empty when its schema names none. */
export function parameterNames(schema: unknown): string[] {
  const json = asJsonSchema(schema);
  const properties = json?.properties;
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

function asJsonSchema(schema: unknown): Record<string, unknown> | undefined {
  if (schema instanceof z.ZodType) {
    try {
      return z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
    } catch {
      // A zod 3 schema or one toJSONSchema cannot express: no parameter names, still searchable.
      return undefined;
    }
  }
  return schema && typeof schema === "object" ? (schema as Record<string, unknown>) : undefined;
}
