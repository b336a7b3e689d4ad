import { WebClient } from "@slack/web-api";
import { type Command, Engine, type Logger, openStore, type Responder, type Store } from "@switchboard/core";
import type { TeamIdentities } from "@switchboard/core/adapter";
import { scriptedResponder } from "@switchboard/core/testing";
import { createSlackAdapter, type SlackAdapter, type SlackAdapterConfig } from "@switchboard/slack";
import { FakeSlack, type FakeSlackOptions } from "./fake-slack.ts";
import { BOT_TOKEN } from "./web-api-stand-in.ts";

export interface SlackBotOptions extends Partial<FakeSlackOptions> {
  readonly responder?: Responder;
  readonly commands?: readonly Command[];
  readonly config?: Partial<SlackAdapterConfig>;
  /** Where the adapter logs (silent by default). */
  readonly logger?: Logger;
  /** How the team's agents show themselves (their `display`). */
  readonly identities?: TeamIdentities;
}

/** A running bot: the real adapter and engine (in-memory store) against a fake Slack workspace. */
export interface SlackBot {
  readonly slack: FakeSlack;
  readonly adapter: SlackAdapter;
  readonly engine: Engine;
  readonly store: Store;
  readonly responder: Responder;
  /** A Web API client as any Slack client would read the workspace (conversations.replies…). */
  readonly reader: WebClient;
  close(): Promise<void>;
}

export async function startSlackBot(options: SlackBotOptions = {}): Promise<SlackBot> {
  const slack = await FakeSlack.start({ transport: options.transport ?? "http", ...options });
  const adapter = await createSlackAdapter(
    { ...slack.adapterConfig(), ...options.config },
    options.logger ? { logger: options.logger } : {},
  );
  if (slack.transport === "http") slack.connectHttp(() => adapter.port);
  const store = await openStore("memory://");
  const responder = options.responder ?? scriptedResponder((turn) => `echo: ${turn.text}`);
  const engine = new Engine({
    store,
    adapters: [adapter],
    responder,
    commands: options.commands ?? [],
    ...(options.identities ? { identities: options.identities } : {}),
  });
  await engine.start();
  return {
    slack,
    adapter,
    engine,
    store,
    responder,
    reader: new WebClient(BOT_TOKEN, { slackApiUrl: slack.api.apiUrl, retryConfig: { retries: 0 } }),
    async close() {
      await engine.idle();
      await slack.settle();
      await engine.stop();
      await slack.close();
      await store.close();
    },
  };
}
