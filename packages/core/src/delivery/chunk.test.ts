import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk.ts";

const fenceLines = (chunk: string) => chunk.split("\n").filter((line) => /^ {0,3}(```|~~~)/.test(line));
const contentLines = (chunks: string[]) =>
  chunks.flatMap((chunk) => chunk.split("\n")).filter((line) => !/^ {0,3}(```|~~~)/.test(line));

describe("chunkMarkdown", () => {
  it("keeps short text whole", () => {
    expect(chunkMarkdown("hello **world**", 100)).toEqual(["hello **world**"]);
  });

  it("returns nothing for blank text", () => {
    expect(chunkMarkdown("  \n \n", 100)).toEqual([]);
  });

  it("closes a fence at a cut and reopens it with its language in the next chunk", () => {
    const code = Array.from({ length: 30 }, (_, i) => `const line${i} = ${i};`).join("\n");
    const chunks = chunkMarkdown(`Here:\n\n\`\`\`ts\n${code}\n\`\`\`\nDone.`, 200);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(200);
      expect(fenceLines(chunk).length % 2).toBe(0);
    }
    expect(chunks[1]?.startsWith("```ts\n")).toBe(true);
    expect(chunks.at(-1)?.endsWith("Done.")).toBe(true);
  });

  it("splits a line longer than the limit at spaces without losing words", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    const chunks = chunkMarkdown(words.join(" "), 100);
    expect(chunks.every((chunk) => chunk.length <= 100)).toBe(true);
    expect(chunks.join(" ").split(/\s+/)).toEqual(words);
  });

  it("never exceeds the limit, keeps every chunk's fences balanced and loses no line (random documents)", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let doc = 0; doc < 300; doc++) {
      const lines: string[] = [];
      let inFence = false;
      for (let i = 0; i < 5 + rand(80); i++) {
        if (rand(8) === 0) {
          lines.push(inFence ? "```" : (["```", "```python", "~~~"][rand(2)] ?? "```"));
          inFence = !inFence;
        } else {
          lines.push("x".repeat(rand(60)));
        }
      }
      if (inFence) lines.push("```");
      const limit = 64 + rand(200);
      const chunks = chunkMarkdown(lines.join("\n"), limit);
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(limit);
        expect(fenceLines(chunk).length % 2).toBe(0);
      }
      expect(contentLines(chunks).filter((l) => l.trim() !== "")).toEqual(
        lines.filter((l) => !/^(```|~~~)/.test(l) && l.trim() !== ""),
      );
    }
  });

  it("rejects a limit too small to hold a reopened fence", () => {
    expect(() => chunkMarkdown("x", 10)).toThrow(RangeError);
  });
});
