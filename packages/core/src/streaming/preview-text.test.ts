import { describe, expect, it } from "vitest";
import { closeOpenFence, previewText } from "./preview-text.ts";

describe("previewText", () => {
  it.each([
    ["plain text as is", "Hello there", undefined, "Hello there"],
    ["trailing spaces of a half-written line dropped", "Hello   ", undefined, "Hello"],
    [
      "progress under the text, in italics",
      "Looking",
      "billing is checking…",
      "Looking\n\n_billing is checking…_",
    ],
    ["progress alone", "", "billing is checking…", "_billing is checking…_"],
    ["underscores in progress escaped", "", "a is using look_up…", "_a is using look\\_up…_"],
    ["an open code block closed", "See:\n```ts\nconst a = 1;", undefined, "See:\n```ts\nconst a = 1;\n```"],
  ])("%s", (_name, text, progress, expected) => {
    expect(previewText(text, progress)).toBe(expected);
  });
});

describe("closeOpenFence", () => {
  it.each([
    ["closed block untouched", "```\na\n```", "```\na\n```"],
    ["tilde fence closed with tildes", "~~~\na", "~~~\na\n~~~"],
    [
      "a longer opening fence closed with the same length",
      "````\n```\nstill code",
      "````\n```\nstill code\n````",
    ],
    ["two blocks, the second open", "```\na\n```\ntext\n```py\nb", "```\na\n```\ntext\n```py\nb\n```"],
    ["no fence", "just text", "just text"],
  ])("%s", (_name, text, expected) => {
    expect(closeOpenFence(text)).toBe(expected);
  });
});
