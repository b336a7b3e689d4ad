/**
 * Before → after for changes to the CLI: the side-by-side's runs (slack-side-by-side.ts) with the
 * CLI of several checkouts (each a copy of the code at one step, its dependencies installed),
 * interleaved round by round with the Chat SDK bot so machine noise hits all alike; the order of
 * the versions rotates from round to round.
 *
 *   node bench/slack/compare-versions.ts before=/tmp/a after=/tmp/b [--rounds 3] [--setups memory-off,defaults]
 *
 * Prints, per set-up and version, the medians over rounds: sequential p50, events/s at 50 in
 * flight, CPU ms per event — each also as a ratio to the Chat SDK's in the same rounds (on Redis,
 * the Chat SDK with its state on Redis).
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
/** The Chat SDK set-up each of ours is compared with: on Redis, the Chat SDK with its state on Redis. */
const baselineOf = (setup: Setup): Setup => (setup === "redis" ? "chat-sdk-redis" : "chat-sdk");
const baselines = [...new Set(setups.map(baselineOf))];
for (let roundIndex = 0; roundIndex < Number(values.rounds); roundIndex++) {
  for (const baseline of baselines) add(baseline, await runSetup(baseline, options));
  for (const setup of setups) {
    const shift = roundIndex % versions.length;
    for (const version of [...versions.slice(shift), ...versions.slice(0, shift)])
      add(`${setup} ${version.label}`, await runSetup(setup, options, version.cli));
  }
}
const mid = (label: string, pick: (run: RunResult) => number) => median((runs.get(label) ?? []).map(pick));
const figures = (label: string) => ({
  p50: mid(label, (run) => run.p50),
  perSec: mid(label, (run) => run.perSec),
  cpu: mid(label, (run) => run.cpuMs),
});
for (const baseline of baselines) {
  const chat = figures(baseline);
  console.log(
    `${baseline}: p50 ${round(chat.p50)} ms, ${round(chat.perSec, 1)} events/s, CPU ${round(chat.cpu)} ms/event (${values.rounds} rounds)`,
  );
}
for (const setup of setups) {
  const chat = figures(baselineOf(setup));
  for (const version of versions) {
    const ours = figures(`${setup} ${version.label}`);
    console.log(
      `${setup} ${version.label}: p50 ${round(ours.p50)} ms (${round(ours.p50 / chat.p50)}×), ` +
        `${round(ours.perSec, 1)} events/s (${round(ours.perSec / chat.perSec)}×), ` +
        `CPU ${round(ours.cpu)} ms/event (${round(ours.cpu / chat.cpu)}×)`,
    );
  }
}
