import type { AddressInfo } from "node:net";
import { App, type Logger as BoltLogger, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import type { WebClientOptions } from "@slack/web-api";
import type { Logger } from "@switchboard/core";
import type { SlackConnection } from "../config.ts";
import { platformErrorCode } from "../slack-api-errors.ts";
import { boltLoggerFrom } from "./bolt-logger.ts";
import { type BotIdentity, SlackAuthError } from "./verify-credentials.ts";

export interface BoltConnectionOptions {
  readonly connection: SlackConnection;
  readonly botToken: string;
  readonly identity: BotIdentity;
  readonly apiUrl: string;
  readonly logger: Logger;
}

/** A Bolt app and the receiver that brings Slack's events to it (HTTP server or Socket Mode). */
export interface BoltConnection {
  readonly app: App;
  /** Resolves once events can arrive; HTTP mode reports the port it listens on. */
  start(): Promise<{ port?: number }>;
  stop(): Promise<void>;
}

interface ReceiverHandle {
  readonly receiver: HTTPReceiver | SocketModeReceiver;
  start(): Promise<{ port?: number }>;
}

function httpReceiver(
  connection: Extract<SlackConnection, { mode: "http" }>,
  logger: BoltLogger,
): ReceiverHandle {
  const receiver = new HTTPReceiver({
    signingSecret: connection.signingSecret,
    endpoints: [connection.path],
    logger,
    // Every request is checked against X-Slack-Signature (v0, 5-minute window); there is no way to turn it off.
    signatureVerification: true,
    // Events are acknowledged before any listener runs: Slack retries whatever is not acked within 3 s.
    processBeforeResponse: false,
  });
  return {
    receiver,
    async start() {
      const server = await receiver.start({ port: connection.port, host: connection.host });
      return { port: (server.address() as AddressInfo).port };
    },
  };
}

function socketModeReceiver(
  connection: Extract<SlackConnection, { mode: "socket" }>,
  logger: BoltLogger,
  clientOptions: WebClientOptions,
): ReceiverHandle {
  const receiver = new SocketModeReceiver({
    appToken: connection.appToken,
    logger,
    installerOptions: { clientOptions },
  });
  return {
    receiver,
    async start() {
      try {
        await receiver.start();
      } catch (error) {
        const code = platformErrorCode(error) ?? platformErrorCode((error as { cause?: unknown }).cause);
        if (code === undefined) throw error;
        throw new SlackAuthError(
          "app token",
          code,
          "use an App-Level Token (xapp-…) with connections:write and turn Socket Mode on",
        );
      }
      return {};
    },
  };
}

export function createBoltConnection(options: BoltConnectionOptions): BoltConnection {
  const { connection, botToken, identity } = options;
  const logger = boltLoggerFrom(options.logger);
  const clientOptions: WebClientOptions = { slackApiUrl: options.apiUrl };
  const handle =
    connection.mode === "http"
      ? httpReceiver(connection, logger)
      : socketModeReceiver(connection, logger, clientOptions);
  const app = new App({
    receiver: handle.receiver,
    token: botToken,
    // Known from our own auth.test, so Bolt does not call it again.
    botId: identity.botId,
    botUserId: identity.userId,
    logger,
    clientOptions,
    // Our own and other bots' messages reach the engine marked as such; the engine screens them.
    ignoreSelf: false,
    convoStore: false,
  });
  return {
    app,
    start: () => handle.start(),
    stop: () => handle.receiver.stop(),
  };
}
