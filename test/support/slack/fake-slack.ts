import { randomBytes } from "node:crypto";
import {
  appMentionEvent,
  blockActionsPayload,
  type EventBody,
  eventCallback,
  messageChangedEvent,
  messageEvent,
  SIGNING_SECRET,
  slashCommandPayload,
} from "./event-payloads.ts";
import {
  type Delivery,
  type EventTransport,
  HttpEventTransport,
  SocketEventTransport,
} from "./event-transport.ts";
import { SocketModeStandIn } from "./socket-mode-stand-in.ts";
import { APP_TOKEN, BOT_TOKEN, WebApiStandIn } from "./web-api-stand-in.ts";
import { ALICE, BOT_USER_ID, type StoredMessage, WorkspaceState } from "./workspace-state.ts";

export type Transport = "http" | "socket";

export interface FakeSlackOptions {
  readonly transport: Transport;
  /** Scopes the bot token reports; all by default. */
  readonly scopes?: readonly string[];
  /** Slack sends the app `message` events for its own posts in channels it listens to. Default on. */
  readonly echoBotMessages?: boolean;
  /** Whether the app may use Slack's streaming methods (default yes). */
  readonly streaming?: boolean;
  /** Sees every message the bot posts, as the Web API stores it (benchmarks time answers by it). */
  readonly onBotMessage?: (message: StoredMessage) => void;
  /** The app's signing secret (Basic Information → App Credentials); HTTP requests are signed with it. */
  readonly signingSecret?: string;
}

/** What the app settings show after Slack's url_verification request to a Request URL. */
export interface RequestUrlCheck {
  /** Slack's "Verified": the answer was 200 and carried the challenge. */
  readonly verified: boolean;
  readonly status: number;
}

export interface SayOptions {
  readonly user?: string;
  readonly threadTs?: string;
  readonly botId?: string;
  readonly subtype?: string;
  /** For a bot mention in a channel: the order Slack happens to send the two events in. */
  readonly mentionOrder?: "app_mention first" | "message first";
  /** Files shared with the message (a `file_share`): stored, and served at their url_private_download. */
  readonly files?: readonly { name: string; bytes: Buffer; mimetype?: string; subtype?: string }[];
}

/**
 * A Slack workspace in a box: the Web API stand-in, the way events reach the app (signed HTTP or
 * Socket Mode), and people writing messages that turn into the events Slack would send.
 */
export class FakeSlack {
  readonly state = new WorkspaceState();
  readonly api: WebApiStandIn;
  readonly transport: Transport;
  readonly signingSecret: string;
  socket: SocketModeStandIn | undefined;
  #events: EventTransport | undefined;
  #http: HttpEventTransport | undefined;
  #httpPort: (() => number | undefined) | undefined;
  #httpPath = "/slack/events";
  #lastPersonDelivery: EventBody | undefined;
  readonly #echoes: Promise<unknown>[] = [];
  readonly echoFailures: unknown[] = [];

  private constructor(options: FakeSlackOptions) {
    this.transport = options.transport;
    this.signingSecret = options.signingSecret ?? SIGNING_SECRET;
    this.api = new WebApiStandIn({
      state: this.state,
      ...(options.scopes ? { scopes: options.scopes } : {}),
      ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
      socketUrl: () => this.socket?.url() ?? "",
      onBotMessage: (message) => {
        options.onBotMessage?.(message);
        if (options.echoBotMessages === false) return;
        // Delivered after the API call returns, as Slack does.
        const echo = Promise.resolve().then(() =>
          this.events.deliverEvent(eventCallback(messageEvent(this.state, message))),
        );
        this.#echoes.push(echo.catch((error: unknown) => this.echoFailures.push(error)));
      },
    });
  }

  static async start(options: FakeSlackOptions): Promise<FakeSlack> {
    const slack = new FakeSlack(options);
    await slack.api.listen();
    if (options.transport === "socket") {
      slack.socket = await SocketModeStandIn.start();
      slack.#events = new SocketEventTransport(slack.socket);
    }
    return slack;
  }

  /** Adapter config that points the real SDK at this workspace. */
  adapterConfig() {
    const common = { botToken: BOT_TOKEN, apiUrl: this.api.apiUrl };
    return this.transport === "socket"
      ? { ...common, appToken: APP_TOKEN }
      : { ...common, signingSecret: this.signingSecret, port: 0, host: "127.0.0.1" };
  }

  /** HTTP mode: where the app's events server listens (asked when the first event goes out). */
  connectHttp(port: number | (() => number | undefined), path = "/slack/events"): void {
    this.#httpPort = typeof port === "number" ? () => port : port;
    this.#http = undefined;
    this.#httpPath = path;
  }

  get http(): HttpEventTransport {
    if (!this.#http) {
      const port = this.#httpPort?.();
      if (port === undefined) throw new Error("the app's events server is not listening yet (connectHttp)");
      this.#http = new HttpEventTransport(`http://127.0.0.1:${port}${this.#httpPath}`, this.signingSecret);
    }
    return this.#http;
  }

  get events(): EventTransport {
    if (this.#events) return this.#events;
    if (this.transport === "http") return this.http;
    throw new Error("the app is not connected to the fake Slack yet");
  }

  /** Someone writes in a channel or DM: the message is stored and Slack's events go out. */
  async say(channel: string, text: string, options: SayOptions = {}): Promise<StoredMessage> {
    const files = options.files?.map((file) => this.api.shareFile(file));
    const message = this.state.add({
      channel,
      text,
      ...(files?.length ? { files, subtype: "file_share" } : {}),
      user: options.user ?? ALICE,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      ...(options.botId ? { bot_id: options.botId } : {}),
      ...(options.subtype ? { subtype: options.subtype } : {}),
    });
    const bodies = [eventCallback(messageEvent(this.state, message))];
    const isChannel = this.state.channels.get(channel)?.type === "channel";
    if (isChannel && text.includes(`<@${BOT_USER_ID}>`) && !options.botId) {
      const mention = eventCallback(appMentionEvent(message));
      if (options.mentionOrder === "message first") bodies.push(mention);
      else bodies.unshift(mention);
    }
    for (const body of bodies) {
      await this.deliver(body);
      this.#lastPersonDelivery = body;
    }
    return message;
  }

  /**
   * The author edits a message: stored text changes and `message_changed` goes out. When the new
   * text mentions the bot in a channel, Slack also sends `app_mention` again, with `edited` set.
   */
  async edit(message: StoredMessage, text: string): Promise<void> {
    const previous = message.text;
    message.text = text;
    const changed = messageChangedEvent(this.state, message, previous);
    await this.deliver(eventCallback(changed));
    const isChannel = this.state.channels.get(message.channel)?.type === "channel";
    if (isChannel && text.includes(`<@${BOT_USER_ID}>`) && !message.bot_id) {
      const edited = (changed.message as { edited: { user: string; ts: string } }).edited;
      await this.deliver(eventCallback({ ...appMentionEvent(message), edited }));
    }
  }

  deliver(body: EventBody, retryNum?: number): Promise<Delivery> {
    return this.events.deliverEvent(body, retryNum);
  }

  /** Slack's retry of the last event a person caused: same body, same event_id, a retry number. */
  async redeliverLast(retryNum = 1): Promise<Delivery> {
    if (!this.#lastPersonDelivery) throw new Error("nothing delivered yet");
    return this.deliver(this.#lastPersonDelivery, retryNum);
  }

  /**
   * Someone enters `url` as the Request URL in the app's Event Subscriptions (or presses Retry):
   * Slack sends a `url_verification` request signed with the app's secret, and marks the URL
   * verified only when the answer is HTTP 200 carrying the challenge (as plain text, or JSON).
   */
  async verifyRequestUrl(url: string): Promise<RequestUrlCheck> {
    const challenge = randomBytes(24).toString("base64url");
    const body = JSON.stringify({ token: "legacy-verification-token", challenge, type: "url_verification" });
    const delivery = await new HttpEventTransport(url, this.signingSecret).send(body, "application/json");
    const answered =
      typeof delivery.body === "string"
        ? delivery.body
        : (delivery.body as { challenge?: unknown } | undefined)?.challenge;
    return { verified: delivery.status === 200 && answered === challenge, status: delivery.status };
  }

  /** Someone runs the slash command. */
  slashCommand(channel: string, text: string, user = ALICE, command = "/switchboard"): Promise<Delivery> {
    const triggerId = `${Date.now()}.${randomBytes(4).toString("hex")}`;
    const responseUrl = this.api.responseUrl(triggerId, channel, user);
    return this.events.deliverSlashCommand(
      slashCommandPayload({ command, text, user, channel, triggerId, responseUrl }),
    );
  }

  /** Someone presses a button on a message (Block Kit): Slack sends the signed `block_actions` payload. */
  pressButton(message: StoredMessage, actionId: string, user = ALICE): Promise<Delivery> {
    const triggerId = `${Date.now()}.${randomBytes(4).toString("hex")}`;
    const responseUrl = this.api.responseUrl(triggerId, message.channel, user);
    return this.events.deliverInteraction(
      blockActionsPayload({ message, actionId, user, responseUrl, triggerId }),
    );
  }

  /** Waits for Slack's echoes of the bot's own posts to be delivered. */
  async settle(): Promise<void> {
    await Promise.all(this.#echoes);
  }

  async close(): Promise<void> {
    await this.settle();
    await this.socket?.close();
    await this.api.close();
  }
}
