/**
 * Summarises a `.cpuprofile`: self time by where the code lives (our packages, LangGraph,
 * LangChain core, LangSmith, the Slack SDKs, node:sqlite…) and the top functions by self time.
 *
 *   node bench/slack/summarize-profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * Code of an installed package: the path after its last `node_modules/` (pnpm's folder names
 * before that list peer dependencies, so `zod` appears in the path of half the packages).
 */
function installed(names: string): RegExp {
  return new RegExp(`node_modules/(?:${names})/(?!.*node_modules/)`);
}

const AREAS: ReadonlyArray<[string, RegExp]> = [
  ["switchboard engine", /packages\/core\/src\/engine\//],
  ["switchboard memory", /packages\/core\/src\/memory\//],
  ["switchboard team", /packages\/core\/src\/team\//],
  ["switchboard runs", /packages\/core\/src\/runs\//],
  ["switchboard store", /packages\/core\/src\/(store|checkpoints)\//],
  ["switchboard (other)", /packages\/(core|slack)\/src\//],
  ["bench + stand-in", /\/(bench|test)\//],
  ["langsmith", installed("langsmith")],
  ["langgraph", installed("@langchain/langgraph[^/]*")],
  ["langchain core", installed("@langchain/core")],
  ["openai sdk (openai, @langchain/openai)", installed("openai|@langchain/openai")],
  ["slack sdk (bolt, web-api, axios)", installed("@slack/[^/]+|axios|express|raw-body")],
  ["zod", installed("zod")],
  ["keyv / redis client", installed("keyv|@keyv/[^/]+|@redis/[^/]+")],
  ["other node_modules", /node_modules/],
  ["node internals", /^node:|^internal|^$/],
];

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error("usage: summarize-profile.ts <file.cpuprofile> [top]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
});
const areas = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, ms] of selfMs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame || frame.functionName === "(idle)" || frame.functionName === "(program)") continue;
  total += ms;
  const area = AREAS.find(([, pattern]) => pattern.test(frame.url))?.[0] ?? "other";
  areas.set(area, (areas.get(area) ?? 0) + ms);
  const where = frame.url.replace(/^.*node_modules\//, "").replace(/^.*\/work\/[^/]+\//, "");
  const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + ms);
}
const line = (label: string, ms: number) =>
  `${label.padEnd(60)} ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %`;
console.log(line("busy (not idle)", total));
for (const [area, ms] of [...areas].sort((a, b) => b[1] - a[1])) console.log(line(area, ms));
console.log("");
for (const [name, ms] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25)))
  console.log(line(name.slice(0, 60), ms));
