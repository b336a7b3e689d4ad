/**
 * A CPU profile of `switchboard start` (its own process, as in the side-by-side) under the bench's
 * Slack load: warm-up, then `events` events at `inFlight` at once; the profile is written when the
 * CLI stops on SIGTERM.
 *
 *   node bench/slack/profile-events.ts [events] [inFlight] [defaults|memory-off|redis|chat-sdk] [outDir]
 *   node bench/slack/summarize-profile.ts <outDir>/*.cpuprofile
 *
 * With `outDir` `none` nothing is profiled: the CPU per event alone, without the profiler's own cost.
 */
import { ModelStub } from "../../test/support/model/model-stub.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "../support/redis-keys.ts";
import { median } from "../support/stats.ts";
import { tempDir } from "../support/temp-dir.ts";
import { message200 } from "../support/text.ts";
import { driveLoad, SlackLoad } from "./slack-load.ts";
import { startChatSdkProcess, startSwitchboardCli } from "./start-bots.ts";

const [eventsArg = "2000", inFlightArg = "50", setup = "defaults", outDir = "/tmp/sb-prof"] =
  process.argv.slice(2);
const events = Number(eventsArg);
const inFlight = Number(inFlightArg);
const dir = tempDir("profile");
const prefix = uniqueRedisPrefix("profile");
let answers = 0;
const model = await ModelStub.start(() => ({ kind: "answer", text: message200("answer", ++answers) }));
const load = await SlackLoad.start();
const config =
  setup === "memory-off"
    ? { memory: { enabled: false } }
    : setup === "redis"
      ? { store: `${BENCH_REDIS}/?prefix=${prefix}` }
      : {};
const common = {
  dir: dir.path,
  slackApiUrl: load.slack.api.apiUrl,
  modelBaseUrl: model.baseUrl,
  nodeFlags: outDir === "none" ? [] : ["--cpu-prof", `--cpu-prof-dir=${outDir}`],
};
// The Chat SDK bot profiled the same way shows what the same events cost without us.
const bot =
  setup === "chat-sdk" ? await startChatSdkProcess(common) : await startSwitchboardCli({ ...common, config });
load.slack.connectHttp(bot.port, bot.path);
await driveLoad(200, 10, 60_000, (i) => load.ask(`warm ${i}`));
await bot.process.quiet();
const cpu = bot.process.cpuMs();
const run = await driveLoad(events, inFlight, 600_000, (i) => load.ask(`event ${i}`));
await bot.process.quiet();
const used = bot.process.cpuMs() - cpu;
process.stderr.write(
  `${run.latencies.length} events in ${run.seconds.toFixed(1)} s; CLI CPU ${(used / run.latencies.length).toFixed(2)} ms/event; answer p50 ${median(run.latencies).toFixed(2)} ms\n`,
);
await bot.process.stop();
await load.close();
await model.close();
if (setup === "redis") await deleteKeysUnder(prefix);
dir.remove();
