/**
 * The README stays a front door: short, with the two commands a fresh machine needs, and a link to
 * every page of the documentation site (a page nobody links from the README is a page nobody finds).
 * The site's own links are checked by its build (`pnpm docs:build` fails on a dead link).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY_ROOT } from "./support/packaging/repository-root.ts";

async function markdownPages(folder: string): Promise<string[]> {
  const entries = await readdir(join(REPOSITORY_ROOT, folder), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => relative(REPOSITORY_ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith("docs/.vitepress/"))
    .sort();
}

const readme = () => readFile(join(REPOSITORY_ROOT, "README.md"), "utf8");
const linkTargets = (markdown: string) =>
  [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1] ?? "")
    .filter((target) => !/^[a-z]+:/.test(target));

describe("the README", () => {
  it("is at most 200 lines", async () => {
    expect((await readme()).split("\n").length).toBeLessThanOrEqual(200);
  });

  it("gives the two commands for a fresh machine first", async () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(await readme())?.[1] ?? "";
    expect(
      firstBlock
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(/\s+#/)[0]?.trim()),
    ).toEqual(["./run start", "./run test"]);
  });

  it("links every page of the documentation", async () => {
    const linked = new Set(linkTargets(await readme()).map((target) => join(target)));
    const pages = await markdownPages("docs");
    const unlinked = pages.filter((page) => !linked.has(page));
    expect(unlinked, "add a link to each of these pages to README.md's Documentation list").toEqual([]);
  });

  it("links only to files that exist", async () => {
    const missing: string[] = [];
    for (const target of linkTargets(await readme())) {
      const exists = await stat(join(REPOSITORY_ROOT, dirname("README.md"), target)).then(
        () => true,
        () => false,
      );
      if (!exists) missing.push(target);
    }
    expect(missing).toEqual([]);
  });
});

describe("the metrics reference", () => {
  /** Metric names in the files that register them with prom-client. */
  async function registeredMetrics(): Promise<string[]> {
    const names = new Set<string>();
    for (const path of await sourceFiles()) {
      const text = await readFile(join(REPOSITORY_ROOT, path), "utf8");
      if (!text.includes('from "prom-client"')) continue;
      for (const match of text.matchAll(/"(switchboard_[a-z0-9_]+)"/g)) names.add(match[1] ?? "");
    }
    return [...names].sort();
  }

  async function sourceFiles(): Promise<string[]> {
    const entries = await readdir(join(REPOSITORY_ROOT, "packages"), {
      withFileTypes: true,
      recursive: true,
    });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
      .map((entry) => relative(REPOSITORY_ROOT, join(entry.parentPath, entry.name)))
      .filter((path) => /^packages\/[^/]+\/src\//.test(path));
  }

  it("names every metric the code registers, and none it does not", async () => {
    const page = await readFile(join(REPOSITORY_ROOT, "docs/reference/metrics.md"), "utf8");
    const documented = [
      ...new Set([...page.matchAll(/`(switchboard_[a-z0-9_]+)`/g)].map((m) => m[1] ?? "")),
    ].sort();
    const registered = await registeredMetrics();
    expect(registered.length).toBeGreaterThan(20);
    expect(
      registered.filter((name) => !documented.includes(name)),
      "add these to docs/reference/metrics.md",
    ).toEqual([]);
    expect(
      documented.filter((name) => !registered.includes(name)),
      "these are no longer registered",
    ).toEqual([]);
  });
});
