import { describe, expect, it } from "vitest";
import { isPlainText, markdownToMrkdwn, renderMarkdown } from "./mrkdwn.ts";

describe("markdownToMrkdwn", () => {
  const cases: { name: string; markdown: string; mrkdwn: string }[] = [
    { name: "bold", markdown: "a **bold** word", mrkdwn: "a *bold* word" },
    { name: "bold with underscores", markdown: "a __bold__ word", mrkdwn: "a *bold* word" },
    { name: "italics", markdown: "an *italic* word", mrkdwn: "an _italic_ word" },
    { name: "bold italics", markdown: "***both***", mrkdwn: "_*both*_" },
    { name: "strikethrough", markdown: "~~gone~~", mrkdwn: "~gone~" },
    { name: "markers hug the words", markdown: "x **&#32;spaced** y", mrkdwn: "x  *spaced* y" },
    { name: "inline code", markdown: "run `npm test`", mrkdwn: "run `npm test`" },
    {
      name: "link",
      markdown: "see [the docs](https://example.com/a?b=1&c=2)",
      mrkdwn: "see <https://example.com/a?b=1&amp;c=2|the docs>",
    },
    {
      name: "bare URL",
      markdown: "go to https://example.com now",
      mrkdwn: "go to <https://example.com> now",
    },
    {
      name: "link label with formatting is plain",
      markdown: "[**big** deal](https://x.io)",
      mrkdwn: "<https://x.io|big deal>",
    },
    {
      name: "link with a pipe and bracket in the label",
      markdown: "[a|b>c](https://x.io)",
      mrkdwn: "<https://x.io|a¦b&gt;c>",
    },
    { name: "relative link keeps only its words", markdown: "[home](/index)", mrkdwn: "home" },
    {
      name: "reference link",
      markdown: "[docs][d]\n\n[d]: https://example.com",
      mrkdwn: "<https://example.com|docs>",
    },
    {
      name: "image",
      markdown: "![a cat](https://example.com/cat.png)",
      mrkdwn: "<https://example.com/cat.png|a cat>",
    },
    { name: "heading", markdown: "# Title *here*\n\ntext", mrkdwn: "*Title here*\n\ntext" },
    { name: "bullet list", markdown: "- one\n- two", mrkdwn: "• one\n• two" },
    { name: "nested list", markdown: "- one\n  - inner\n- two", mrkdwn: "• one\n    ◦ inner\n• two" },
    { name: "ordered list keeps its start", markdown: "3. three\n4. four", mrkdwn: "3. three\n4. four" },
    { name: "task list", markdown: "- [x] done\n- [ ] todo", mrkdwn: "• ☑ done\n• ☐ todo" },
    {
      name: "list item with two paragraphs",
      markdown: "1. first\n\n   more\n2. second",
      mrkdwn: "1. first\n   more\n2. second",
    },
    {
      name: "code block drops the language",
      markdown: "```ts\nconst a = 1 < 2;\n```",
      mrkdwn: "```\nconst a = 1 &lt; 2;\n```",
    },
    { name: "quote", markdown: "> wise\n> words", mrkdwn: "> wise\n> words" },
    { name: "rule", markdown: "a\n\n---\n\nb", mrkdwn: "a\n\n──────────\n\nb" },
    { name: "control characters escaped", markdown: "1 < 2 & 3 > 2", mrkdwn: "1 &lt; 2 &amp; 3 &gt; 2" },
    { name: "hard break", markdown: "line one  \nline two", mrkdwn: "line one\nline two" },
  ];
  for (const { name, markdown, mrkdwn } of cases) {
    it(name, () => {
      expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
    });
  }

  it("renders a narrow table as an aligned grid in a code block", () => {
    const markdown = "| Name | Count |\n|:-----|------:|\n| apples | 3 |\n| kiwis | 12 |";
    expect(markdownToMrkdwn(markdown)).toBe(
      ["```", "Name   | Count", "-------+------", "apples |     3", "kiwis  |    12", "```"].join("\n"),
    );
  });

  it("renders a wide table as one block per row", () => {
    const long = "x".repeat(60);
    const markdown = `| Name | Notes | Owner |\n|---|---|---|\n| alpha | ${long} | ann |\n| beta | short | bob |`;
    expect(markdownToMrkdwn(markdown)).toBe(
      [
        `*Name: alpha*`,
        `Notes: ${long}`,
        "Owner: ann",
        "",
        "*Name: beta*",
        "Notes: short",
        "Owner: bob",
      ].join("\n"),
    );
  });
});

describe("markdownToMrkdwn never lets model output ping anyone", () => {
  const pings = [
    "<!channel> look",
    "<!here>",
    "<!everyone> hi",
    "hey <@U0ALICE>",
    "<!subteam^S123|@ops>",
    "<#C0GENERAL>",
    "[click](!channel)",
    "[click](@U0ALICE)",
    "`<!channel>`",
    "```\n<!here>\n```",
    "| a |\n|---|\n| <!channel> |",
    "- <!everyone>",
    "> <@U0ALICE>",
    "**<!channel>**",
  ];
  for (const markdown of pings) {
    it(JSON.stringify(markdown), () => {
      const mrkdwn = markdownToMrkdwn(markdown);
      expect(mrkdwn).not.toMatch(/<[!@#]/);
    });
  }

  it("keeps plain broadcast words from linking", () => {
    expect(markdownToMrkdwn("tell @channel and @here")).toBe("tell @\u2060channel and @\u2060here");
  });
});

describe("markdownToMrkdwn on text without markdown", () => {
  const plain = [
    "Here is your answer.",
    "Yes. Your order ships on Monday, 3 June (10:30 am); it costs $12 or 15%!",
    "First paragraph.\n\nSecond one,\nwith a soft break.",
    "Ça coûte 12 €? Non: c’est “gratuit”.",
    "\nBetween blank lines.\n\n",
    "Ends in spaces, as streamed answers do:  ",
  ];
  // Each looks plain but means something to markdown: the parser must see it.
  const lookalikes = [
    "1. first\n2. second",
    "3) third",
    "see https://example.com now",
    "visit www.example.com today",
    "line one  \nline two",
    "  indented line",
    "    code block",
    "\n  padded  \n",
    "a\n\n\n\nb",
    "",
  ];
  it("skips the parser for plain text, and only for it", () => {
    expect(plain.filter((text) => !isPlainText(text))).toEqual([]);
    expect(lookalikes.filter((text) => isPlainText(text))).toEqual([]);
  });

  for (const text of [...plain, ...lookalikes]) {
    it(`gives what the parser gives for ${JSON.stringify(text)}`, () => {
      expect(markdownToMrkdwn(text)).toBe(renderMarkdown(text));
    });
  }

  it("gives what the parser gives for random text of the characters it lets through", () => {
    const alphabet = ["a", "Z", "é", "1", "9", " ", " ", ",", ".", ";", ":", "?", "!", "'", '"', "(", ")"];
    const pieces = [...alphabet, "%", "$", "€", "/", "\n", "\n\n", "www.", "://", "http", "2.", "1)"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let sample = 0; sample < 3_000; sample += 1) {
      const text = Array.from({ length: 1 + (next() % 40) }, () => pieces[next() % pieces.length]).join("");
      expect(markdownToMrkdwn(text), JSON.stringify(text)).toBe(renderMarkdown(text));
    }
  });
});
