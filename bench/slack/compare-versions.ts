/**
 * Before → after for changes to the CLI: the side-by-side's runs (slack-side-by-side.ts) with the
 * CLI of several checkouts (each a copy of the code at one step, its dependencies installed),
 * interleaved round by round with the Chat SDK bot so machine noise hits all alike; the order of
 * the versions rotates from round to round.
 *
 *   node bench/slack/compare-versions.ts before=/tmp/a after=/tmp/b [--rounds 3] [--setups memory-off,defaults]
 *
 * Prints, per set-up and version, the medians over rounds: sequential p50, events/s at 50 in
 * flight, CPU ms per event — each also as a ratio to the Chat SDK's in the same rounds.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type RunResult, runSetup, type Setup } from "../slack-side-by-side.ts";
import { median, round } from "../support/stats.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: "string", default: "3" }, setups: { type: "string", default: "memory-off" } },
});
const versions = positionals.map((argument) => {
  const [label, path] = argument.split("=");
  if (!label || !path) throw new Error(`expected label=checkout, got ${argument}`);
  return { label, cli: join(resolve(path), "packages", "cli", "src", "main.ts") };
});
if (versions.length === 0)
  throw new Error("usage: compare-versions.ts label=checkout… [--rounds N] [--setups a,b]");
const setups = values.setups.split(",") as Setup[];
const options = { rounds: 1, sequentialBoxMs: 5_000, concurrentBoxMs: 8_000 };
const runs = new Map<string, RunResult[]>();
const add = (label: string, result: RunResult) => runs.set(label, [...(runs.get(label) ?? []), result]);
for (let roundIndex = 0; roundIndex < Number(values.rounds); roundIndex++) {
  add("chat-sdk", await runSetup("chat-sdk", options));
  for (const setup of setups) {
    const shift = roundIndex % versions.length;
    for (const version of [...versions.slice(shift), ...versions.slice(0, shift)])
      add(`${setup} ${version.label}`, await runSetup(setup, options, version.cli));
  }
}
const mid = (label: string, pick: (run: RunResult) => number) => median((runs.get(label) ?? []).map(pick));
const chat = {
  p50: mid("chat-sdk", (run) => run.p50),
  perSec: mid("chat-sdk", (run) => run.perSec),
  cpu: mid("chat-sdk", (run) => run.cpuMs),
};
console.log(
  `chat-sdk: p50 ${round(chat.p50)} ms, ${round(chat.perSec, 1)} events/s, CPU ${round(chat.cpu)} ms/event (${values.rounds} rounds)`,
);
for (const label of [...runs.keys()].filter((label) => label !== "chat-sdk")) {
  const p50 = mid(label, (run) => run.p50);
  const perSec = mid(label, (run) => run.perSec);
  const cpu = mid(label, (run) => run.cpuMs);
  console.log(
    `${label}: p50 ${round(p50)} ms (${round(p50 / chat.p50)}×), ${round(perSec, 1)} events/s (${round(perSec / chat.perSec)}×), ` +
      `CPU ${round(cpu)} ms/event (${round(cpu / chat.cpu)}×)`,
  );
}
