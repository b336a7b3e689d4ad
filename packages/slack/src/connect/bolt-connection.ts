import { App, type Logger as BoltLogger, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import type { WebClientOptions } from "@slack/web-api";
import type { Logger } from "@switchboard/core/adapter";
import type { SlackConnection } from "../config.ts";
import { HttpIntake } from "../intake/http-intake.ts";
import { isNotAccepted } from "../intake/not-accepted.ts";
import { RejectionLog } from "../intake/rejection-log.ts";
import { ackSocketEventsAfterIntake } from "../intake/socket-intake.ts";
import type { MessageReceiver } from "../receive/message-receiver.ts";
import { platformErrorCode } from "../slack-api-errors.ts";
import { boltLoggerFrom } from "./bolt-logger.ts";
import { type BotIdentity, SlackAuthError } from "./verify-credentials.ts";

export interface BoltConnectionOptions {
  readonly connection: SlackConnection;
  readonly botToken: string;
  readonly identity: BotIdentity;
  readonly apiUrl: string;
  readonly logger: Logger;
  /** HTTP mode: takes the events the engine hears straight off the request (see HttpIntake). */
  readonly messages?: MessageReceiver;
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
  stop(): Promise<void>;
}

function httpReceiver(
  connection: Extract<SlackConnection, { mode: "http" }>,
  logger: BoltLogger,
  rejections: RejectionLog,
  operatorLog: Logger,
  messages: MessageReceiver | undefined,
): ReceiverHandle {
  const notAccepted = (error: unknown) =>
    operatorLog.warn("a Slack event was not accepted; answered 503 so Slack sends it again", { error });
  const receiver = new HTTPReceiver({
    signingSecret: connection.signingSecret,
    endpoints: [connection.path],
    logger,
    // Checked again here after the intake's own check; there is no way to turn it off.
    signatureVerification: true,
    // The response (the ack) is written once the listeners finished, i.e. once the engine accepted
    // the event: an event the engine refused gets a 503 and Slack delivers it again.
    processBeforeResponse: true,
    processEventErrorHandler: async ({ error, response }) => {
      if (response.headersSent) return false;
      if (isNotAccepted(error)) {
        notAccepted(error);
        response.writeHead(503);
      } else {
        rejections.note("event processing failed", { error });
        response.writeHead(500);
      }
      response.end();
      return true;
    },
  });
  const intake = new HttpIntake({
    path: connection.path,
    signingSecret: connection.signingSecret,
    rejections,
    handOn: (request, response) => receiver.requestListener(request, response),
    // Bolt's routing (middleware, listener matching, its own second parse and signature check)
    // costs more than the hand-over itself, for every message in every channel the bot is in.
    ...(messages
      ? {
          takeEvent: (body, retryNum) => messages.receiveBody(body, retryNum),
          onHandOverFailed: (error, refused) =>
            refused ? notAccepted(error) : operatorLog.error("handling a Slack event failed", { error }),
        }
      : {}),
  });
  return {
    receiver,
    async start() {
      return { port: await intake.listen(connection.port, connection.host) };
    },
    stop: () => intake.close(),
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
    stop: () => receiver.stop(),
  };
}

export function createBoltConnection(options: BoltConnectionOptions): BoltConnection {
  const { connection, botToken, identity } = options;
  const logger = boltLoggerFrom(options.logger);
  const rejections = new RejectionLog({ logger: options.logger });
  const clientOptions: WebClientOptions = { slackApiUrl: options.apiUrl };
  const handle =
    connection.mode === "http"
      ? httpReceiver(connection, logger, rejections, options.logger, options.messages)
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
  if (handle.receiver instanceof SocketModeReceiver)
    ackSocketEventsAfterIntake(handle.receiver, app, rejections, options.logger);
  return {
    app,
    start: () => handle.start(),
    async stop() {
      await handle.stop();
      rejections.close();
    },
  };
}
