import { describe, expect, it } from "vitest";
import { z } from "zod";
import { httpToolParametersSchema, parameterNames } from "./http-tool-parameters.ts";

describe("httpToolParametersSchema", () => {
  it.each([
    [
      "compact types, ? for optional",
      { city: "string", days: "integer?" },
      {
        type: "object",
        properties: { city: { type: "string" }, days: { type: "integer" } },
        required: ["city"],
        additionalProperties: false,
      },
    ],
    [
      "compact objects with description and enum",
      { unit: { type: "string", enum: ["c", "f"], description: "temperature unit", optional: true } },
      {
        type: "object",
        properties: { unit: { type: "string", enum: ["c", "f"], description: "temperature unit" } },
        required: [],
        additionalProperties: false,
      },
    ],
    [
      "a JSON Schema object, kept as written",
      { type: "object", properties: { q: { type: "string", minLength: 2 } }, required: ["q"] },
      { type: "object", properties: { q: { type: "string", minLength: 2 } }, required: ["q"] },
    ],
  ])("%s", (_name, input, expected) => {
    expect(httpToolParametersSchema.parse(input)).toEqual(expected);
  });

  it.each([
    ["an unknown type", { city: "text" }],
    ["a field name with spaces", { "the city": "string" }],
    ["a list", ["city"]],
    ["an unknown key in a field", { city: { type: "string", required: true } }],
  ])("refuses %s", (_name, input) => {
    expect(httpToolParametersSchema.safeParse(input).success).toBe(false);
  });
});

describe("parameterNames", () => {
  it("reads JSON Schema and zod schemas", () => {
    expect(parameterNames({ type: "object", properties: { orderId: {}, amount: {} } })).toEqual([
      "orderId",
      "amount",
    ]);
    expect(parameterNames(z.object({ city: z.string() }))).toEqual(["city"]);
    expect(parameterNames(undefined)).toEqual([]);
  });
});
