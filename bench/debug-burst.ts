import { freePort } from "../test/services/free-port.ts";
import { shortAnswer, tokenOf } from "../test/support/crash/scripted-answers.ts";
import { ModelStub } from "../test/support/model/model-stub.ts";
import { SlackCli } from "./support/slack-cli.ts";
import { percentile } from "./support/stats.ts";

const N = Number(process.argv[2] ?? 1000);
const stub = await ModelStub.start((request) => ({
  kind: "answer",
  text: shortAnswer(tokenOf(request)),
  latencyMs: 2000,
}));
const httpPort = await freePort();
const run = await SlackCli.start({
  name: "dbg",
  model: stub.modelConfig(),
  extra: { memory: { enabled: true }, http: { port: httpPort, host: "127.0.0.1" } },
});
const t0 = performance.now();
const poll = setInterval(async () => {
  try {
    const body = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
    const pick = body
      .split("\n")
      .filter((l) =>
        /^(switchboard_(running_turns|turns_waiting_to_start|cpu_slots |event_loop_delay|model_endpoint_(in_flight|queued))|nodejs_heap_size_used|nodejs_gc)/.test(
          l,
        ),
      )
      .map((l) => l.replace(/\{endpoint=[^}]*\}/, "").replace("switchboard_", ""));
    const stat = (await import("node:fs")).readFileSync(`/proc/${run.cli.pid}/stat`, "utf8").split(" ");
    console.log(
      Math.round(performance.now() - t0),
      "cpu",
      (Number(stat[13]) + Number(stat[14])) * 10,
      "stub",
      stub.inFlight.value,
      pick.join(" | "),
    );
  } catch (e) {
    console.log("poll failed", String(e));
  }
}, 1000);
const mentions = Array.from({ length: N }, (_, i) =>
  run.mention(`please help with q${String(i).padStart(3, "0")}`),
);
await Promise.all(mentions.map((m) => m.delivered));
console.log("delivered at", Math.round(performance.now() - t0));
const probes = [];
for (let i = 0; i < 200; i++) {
  probes.push(run.mention(`please help with t${String(i).padStart(3, "0")}`));
  await new Promise((r) => setTimeout(r, 10));
}
await Promise.all(probes.map((m) => m.delivered));
const acks = probes.flatMap((p) => p.acks);
console.log("probe acks p50", percentile(acks, 50), "p99", percentile(acks, 99), "max", Math.max(...acks));
const n = await run.waitForAnswers(mentions, 120_000);
clearInterval(poll);
console.log("answered", n, "in", Math.round(performance.now() - t0));
await run.close();
await stub.close();
