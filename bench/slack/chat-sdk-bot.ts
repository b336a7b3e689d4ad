/**
 * The comparison, as a program of its own: a Chat SDK bot (the `chat` package with its Slack
 * adapter; state in memory, or on Redis with `@chat-adapter/state-redis`) behind a plain Node HTTP
 * server, whose mention handler runs a one-node LangGraph graph with MemorySaver on an
 * OpenAI-compatible model and posts the answer in the thread — what a team would write with
 * those libraries.
 *
 *   node bench/slack/chat-sdk-bot.ts '{"apiUrl":"…","modelBaseUrl":"…","redis":{"url":"…","keyPrefix":"…"}}'
 *
 * Prints `listening on <port>` once it takes events; SIGTERM stops it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSlackAdapter } from "@chat-adapter/slack";
import { createMemoryState } from "@chat-adapter/state-memory";
import { createRedisState } from "@chat-adapter/state-redis";
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAICompletions } from "@langchain/openai";
import { Chat } from "chat";
import { SIGNING_SECRET } from "../../test/support/slack/event-payloads.ts";
import { BOT_TOKEN } from "../../test/support/slack/web-api-stand-in.ts";
import { BOT_USER_ID } from "../../test/support/slack/workspace-state.ts";
import { plainGraph } from "../support/plain-graph.ts";

export interface ChatSdkBotOptions {
  /** The Slack Web API stand-in. */
  readonly apiUrl: string;
  /** The OpenAI-compatible model server (`…/v1`). */
  readonly modelBaseUrl: string;
  /** State on Redis instead of in memory. */
  readonly redis?: { readonly url: string; readonly keyPrefix: string };
}

/** The request body, read whole: the Chat SDK verifies the signature over the raw bytes. */
async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function main(options: ChatSdkBotOptions): Promise<void> {
  const model = new ChatOpenAICompletions({
    model: "stub",
    apiKey: "x",
    configuration: { baseURL: options.modelBaseUrl },
  });
  const graph = plainGraph(model);
  const bot = new Chat({
    userName: "switchboard",
    adapters: {
      slack: createSlackAdapter({
        botToken: BOT_TOKEN,
        signingSecret: SIGNING_SECRET,
        apiUrl: options.apiUrl,
        botUserId: BOT_USER_ID,
        webClientOptions: { retryConfig: { retries: 0 } },
      }),
    },
    state: options.redis
      ? createRedisState({ url: options.redis.url, keyPrefix: options.redis.keyPrefix })
      : createMemoryState(),
    logger: "silent",
  });
  bot.onNewMention(async (thread, message) => {
    const result = await graph.graph.invoke(
      { messages: [new HumanMessage(message.text)] },
      { configurable: { thread_id: thread.id } },
    );
    await thread.post(String(result.messages.at(-1)?.content ?? ""));
  });
  await bot.initialize();
  const background = new Set<Promise<unknown>>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const webRequest = new Request(`http://127.0.0.1${request.url ?? "/"}`, {
        method: request.method ?? "POST",
        headers,
        body,
      });
      const answer = await bot.webhooks.slack(webRequest, {
        waitUntil: (work: Promise<unknown>) => {
          background.add(work);
          void work.finally(() => background.delete(work));
        },
      });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.once("SIGTERM", () => {
    void (async () => {
      await Promise.allSettled([...background]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bot.shutdown();
      process.exit(0);
    })();
  });
  process.stdout.write(`listening on ${(server.address() as AddressInfo).port}\n`);
}

const [json] = process.argv.slice(2);
if (json === undefined) throw new Error("usage: chat-sdk-bot.ts '<options as JSON>'");
await main(JSON.parse(json) as ChatSdkBotOptions);
