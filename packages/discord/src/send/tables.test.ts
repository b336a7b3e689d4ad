import { describe, expect, it } from "vitest";
import { degradeTables } from "./tables.ts";

const lines = (...parts: string[]) => parts.join("\n");

describe("degradeTables", () => {
  it.each<[string, string, string]>([
    [
      "a narrow table becomes an aligned block",
      lines("| Name | Age |", "|---|---|", "| Ada | 36 |", "| Grace | 85 |"),
      lines("```", "Name   Age", "-----  ---", "Ada    36", "Grace  85", "```"),
    ],
    [
      "column alignment is kept",
      lines("| Item | Price |", "|:-----|------:|", "| tea | 3 |", "| cake | 12 |"),
      lines("```", "Item  Price", "----  -----", "tea       3", "cake     12", "```"),
    ],
    [
      "inline markdown inside cells is reduced to its words",
      lines("| **Key** | `value` |", "| - | - |", "| [docs](https://x.y) | ~~old~~ |"),
      lines("```", "Key   value", "----  -----", "docs  old", "```"),
    ],
    [
      "escaped pipes stay in their cell",
      lines("a | b", "--|--", "x \\| y | z"),
      lines("```", "a      b", "-----  -", "x | y  z", "```"),
    ],
    [
      "a wide table becomes a list led by its first column",
      lines(
        "| Service | Status | Notes |",
        "|---|---|---|",
        "| api | up | serving every request from the new cluster since Tuesday |",
        "| worker | down | |",
      ),
      lines(
        "- **api** — Status: up · Notes: serving every request from the new cluster since Tuesday",
        "- **worker** — Status: down",
      ),
    ],
    [
      "text around a table is untouched",
      lines("Here:", "", "| a | b |", "|---|---|", "| 1 | 2 |", "", "Done."),
      lines("Here:", "", "```", "a  b", "-  -", "1  2", "```", "", "Done."),
    ],
    [
      "a table inside a code block is code, not a table",
      lines("```md", "| a | b |", "|---|---|", "| 1 | 2 |", "```"),
      lines("```md", "| a | b |", "|---|---|", "| 1 | 2 |", "```"),
    ],
    ["pipes without a delimiter row are just text", lines("a | b", "c | d"), lines("a | b", "c | d")],
    [
      "a delimiter row with the wrong column count is not a table",
      lines("| a | b |", "|---|", "| 1 | 2 |"),
      lines("| a | b |", "|---|", "| 1 | 2 |"),
    ],
    [
      "a table inside a list item keeps its place in the list, as typed",
      lines("- item", "", "  | a | b |", "  |---|---|", "  | 1 | 2 |"),
      lines("- item", "", "  | a | b |", "  |---|---|", "  | 1 | 2 |"),
    ],
    [
      "a table right after a paragraph line is found as GFM finds it",
      lines("Results:", "| a | b |", "|---|---|", "| 1 | 2 |"),
      lines("Results:", "```", "a  b", "-  -", "1  2", "```"),
    ],
    ["text without tables is returned as is", "just **words**\n- and a list", "just **words**\n- and a list"],
  ])("%s", (_, input, expected) => {
    expect(degradeTables(input)).toBe(expected);
  });
});
