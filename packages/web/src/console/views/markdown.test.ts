import { describe, expect, it } from "vitest";
import { markdownHtml } from "./markdown.ts";

describe("bot messages as markdown", () => {
  it.each([
    ["**billing** wants to run `refund`", "<strong>billing</strong> wants to run <code>refund</code>"],
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
    ["[click](javascript:alert(1))", "[click](javascript:alert(1))"],
    ["[docs](https://example.com)", '<a href="https://example.com">docs</a>'],
  ])("renders %j safely", (text, expected) => {
    expect(String(markdownHtml(text))).toContain(expected);
  });
});
