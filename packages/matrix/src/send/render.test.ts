import { describe, expect, it } from "vitest";
import { ContentTooLargeError, contentBytes, HTML_FORMAT, markdownToHtml, renderText } from "./render.ts";

describe("markdownToHtml", () => {
  it.each([
    ["**bold** and `code`", "<p><strong>bold</strong> and <code>code</code></p>"],
    ["line one\nline two", "<p>line one<br>\nline two</p>"],
    ["```js\nlet a = 1 < 2;\n```", '<pre><code class="language-js">let a = 1 &lt; 2;\n</code></pre>'],
    ["- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"],
    ["use <b>tags</b> & more", "<p>use &lt;b>tags&lt;/b> &amp; more</p>"],
    [
      "a | b\n--|--\n1 | 2",
      "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>",
    ],
    ["<div>block html</div>", "<p>&lt;div>block html&lt;/div></p>"],
  ])("%j", (markdown, html) => {
    expect(markdownToHtml(markdown)).toBe(html);
  });
});

describe("renderText", () => {
  const fixed = { msgtype: "m.text", "m.mentions": {} };

  it("keeps the markdown as the plain body next to the HTML", () => {
    expect(renderText("*hi*", fixed)).toEqual({
      body: "*hi*",
      format: HTML_FORMAT,
      formatted_body: "<p><em>hi</em></p>",
    });
  });

  it("drops the HTML when it alone would push the content over the budget", () => {
    const text = "**x** ".repeat(300);
    const budget = contentBytes({ ...fixed, body: text }) + 100;
    expect(renderText(text, fixed, budget)).toEqual({ body: text });
  });

  it("refuses text that does not fit even as plain body", () => {
    expect(() => renderText("x".repeat(2000), fixed, 1000)).toThrow(ContentTooLargeError);
  });

  it("fits a worst-case 4,000-character chunk far below the event limit", () => {
    const dense = '"&<'.repeat(1334).slice(0, 4000);
    const rendered = renderText(dense, fixed);
    expect(rendered.formatted_body).toBeDefined();
    expect(contentBytes({ ...fixed, ...rendered })).toBeLessThan(40_000);
  });
});
