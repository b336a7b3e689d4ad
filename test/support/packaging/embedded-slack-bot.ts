/**
 * A bot of one's own built from the published packages, the way a team embeds Switchboard: its
 * engine and store from @switchboard/core, the Slack adapter from @switchboard/slack, and a
 * responder of its own. The install test copies this file into a fresh npm project, type-checks it
 * against the installed declarations and runs it against the Slack stand-in.
 *
 *   node embedded-slack-bot.ts <Web API URL> <bot token> <app token>
 */
import { Engine, openStore, type Responder } from "@switchboard/core";
import { createSlackAdapter } from "@switchboard/slack";

const [apiUrl, botToken, appToken] = process.argv.slice(2);
if (!apiUrl || !botToken || !appToken)
  throw new Error("usage: embedded-slack-bot.ts <api url> <bot token> <app token>");

const responder: Responder = {
  async respond(turn) {
    return { text: `embedded bot heard: ${turn.text}` };
  },
};

const store = await openStore("sqlite://./data/embedded-bot.db");
const adapter = await createSlackAdapter({ botToken, appToken, apiUrl });
const engine = new Engine({ store, adapters: [adapter], responder });
await engine.start();
process.stdout.write("embedded bot ready\n");

process.once("SIGTERM", async () => {
  await engine.stop();
  await store.close();
  process.exit(0);
});
