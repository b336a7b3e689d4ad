/**
 * Sends Slack events to Switchboard on the default set-up (SQLite, memory on), for a CPU profile:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/sb-prof bench/slack/profile-events.ts [events] [memory-off]
 *   node bench/slack/summarize-profile.ts /tmp/sb-prof/*.cpuprofile
 */
import { sqliteUrl, tempDir } from "../support/temp-dir.ts";
import { driveLoad, SlackLoad } from "./slack-load.ts";
import { startSwitchboardSlack } from "./switchboard-slack-bot.ts";

const events = Number(process.argv[2] ?? 300);
const load = await SlackLoad.start();
const dir = tempDir("profile");
const memory = process.argv[3] !== "memory-off";
const bot = await startSwitchboardSlack(load.slack, { url: sqliteUrl(dir.path), memory });
await driveLoad(50, 1, 60_000, (i) => load.ask(`warm ${i}`));
await driveLoad(events, 1, 600_000, async (i) => {
  const ms = await load.ask(`event ${i}`);
  await bot.idle();
  return ms;
});
await bot.close();
await load.close();
dir.remove();
