/**
 * The documentation site (VitePress). The sidebar is read from the folders, so a page added to
 * docs/tutorials, how-to, concepts, features or reference appears without touching this file:
 * its title is its first `# ` heading, its place the `order:` of its front matter (then the title).
 * Dead links fail the build (VitePress's default; `ignoreDeadLinks` stays off).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DefaultTheme, defineConfig } from "vitepress";

const root = fileURLToPath(new URL("..", import.meta.url));

const SECTIONS = [
  { folder: "tutorials", text: "Tutorials" },
  { folder: "how-to", text: "How-to guides" },
  { folder: "concepts", text: "Concepts" },
  { folder: "features", text: "Features" },
  { folder: "reference", text: "Reference" },
] as const;

interface Page {
  readonly title: string;
  readonly order: number;
  readonly link: string;
}

function pageOf(folder: string, file: string): Page {
  const text = readFileSync(join(root, folder, file), "utf8");
  const frontMatter = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? "";
  const order = Number(/^order:\s*(\d+)/m.exec(frontMatter)?.[1] ?? 1000);
  const heading = /^# (.+)$/m.exec(text)?.[1]?.trim();
  const title = /^title:\s*(.+)$/m.exec(frontMatter)?.[1]?.trim() ?? heading ?? file.replace(/\.md$/, "");
  const name = file.replace(/\.md$/, "");
  return { title, order, link: `/${folder}/${name === "index" ? "" : name}` };
}

function sidebar(): DefaultTheme.SidebarItem[] {
  return SECTIONS.map(({ folder, text }) => {
    let files: string[] = [];
    try {
      files = readdirSync(join(root, folder)).filter((file) => file.endsWith(".md"));
    } catch {
      // A section whose folder does not exist yet has no pages.
    }
    const pages = files
      .map((file) => pageOf(folder, file))
      .sort((a, b) => a.order - b.order || a.title.localeCompare(b.title));
    return { text, collapsed: false, items: pages.map(({ title, link }) => ({ text: title, link })) };
  });
}

export default defineConfig({
  title: "Switchboard",
  description: "A team of AI agents in Matrix, Discord and Slack threads.",
  cleanUrls: true,
  lastUpdated: false,
  srcExclude: ["README.md"],
  themeConfig: {
    nav: SECTIONS.map(({ folder, text }) => ({ text, link: `/${folder}/` })).filter(
      ({ link }) => link !== "/features/",
    ),
    sidebar: sidebar(),
    outline: [2, 3],
    search: { provider: "local" },
  },
});
