import { describe, expect, it } from "vitest";
import { MARKDOWN_CHUNK_LIMIT, SLACK_TEXT_LIMIT, toSlackTexts } from "./slack-poster.ts";

describe("toSlackTexts", () => {
  it("posts a chunk that fits as one message", () => {
    expect(toSlackTexts("**hi** there")).toEqual(["*hi* there"]);
  });

  it("splits a chunk that grew past Slack's limit in conversion, keeping code blocks closed", () => {
    // Every `&` becomes `&amp;`: a chunk at the markdown limit grows well past 4,000 characters.
    const code = Array.from({ length: 110 }, (_, i) => `if (a${i} && b${i}) { run(${i}); }`).join("\n");
    const markdown = `intro\n\n\`\`\`c\n${code}\n\`\`\``;
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_CHUNK_LIMIT);
    const texts = toSlackTexts(markdown);
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT);
      expect(text.match(/```/g)?.length ?? 0).toBe(2);
    }
    const joined = texts.join("\n");
    for (const i of [0, 60, 109]) expect(joined).toContain(`run(${i});`);
  });

  it("posts markdown with nothing visible as typed", () => {
    expect(toSlackTexts("[d]: https://example.com")).toEqual(["[d]: https://example.com"]);
  });

  it("posts nothing for blank text", () => {
    expect(toSlackTexts("  \n ")).toEqual([]);
  });
});
