import { randomBytes } from "node:crypto";
import type { ConversationRef, OutboundMessage, PostedMessage } from "@switchboard/core";
import type { Adapter, InboundSink } from "@switchboard/core/adapter";
import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import { CONSOLE_HELP, parseConsoleLine } from "./console-line.ts";

export interface ConsoleAdapterOptions {
  /** Where the chat is printed (stdout); logs go elsewhere. */
  readonly print: (line: string) => void;
  /** Remembers the current thread across restarts. */
  readonly state: Keyv<string>;
  readonly userId: string;
  /** Shows an answer's markdown for the terminal; printed as written without it. */
  readonly renderMarkdown?: (markdown: string) => string;
}

const MENTION = /(^|\s)@(bot|switchboard)\b/i;
const DEFAULT_PLACE = "main";
/** Bot messages `:reply` can name; the oldest are forgotten first. */
const REMEMBERED_POSTS = 1_000;

/**
 * A terminal chat against the real pipeline. Places are DM-like threads (`main`, `:new` ones) and
 * simulated group channels (`#name`), where the bot answers only when mentioned, in a thread of its
 * own (`#name/<id>`), exactly as on a chat platform.
 */
export class ConsoleAdapter implements Adapter {
  readonly platform = "console";
  readonly limits = { maxMessageLength: 4_000 };
  readonly #options: ConsoleAdapterOptions;
  readonly #idPrefix = randomBytes(3).toString("hex");
  #sequence = 0;
  #sink: InboundSink | undefined;
  #place = DEFAULT_PLACE;
  readonly #places = new Set<string>([DEFAULT_PLACE]);
  /** Ids of the bot messages printed in this run: the only ones a `:reply` can name. */
  readonly #posted = new LRUCache<string, true>({ max: REMEMBERED_POSTS });

  constructor(options: ConsoleAdapterOptions) {
    this.#options = options;
  }

  get place(): string {
    return this.#place;
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
    this.#place = (await this.#options.state.get("place")) ?? DEFAULT_PLACE;
    this.#places.add(this.#place);
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  /** Handles one typed line; returns the id of the message sent to the bot, if one was. false: the user quit. */
  async handleLine(line: string): Promise<string | undefined | false> {
    if (line.trim() === "") return undefined;
    const action = parseConsoleLine(line);
    switch (action.kind) {
      case "say":
        return this.#send(action.text);
      case "reply":
        if (!this.#posted.has(action.to)) {
          // Sent anyway, it would silently become a plain message or be dropped.
          this.#options.print(
            `(no bot message ${action.to} here; :reply takes the id shown in parentheses after the bot's name)`,
          );
          return undefined;
        }
        return this.#send(action.text, action.to);
      case "new-thread":
        await this.#switchTo(action.name ?? `t-${this.#nextId()}`);
        return undefined;
      case "switch":
        await this.#switchTo(action.place);
        return undefined;
      case "list":
        this.#options.print(
          [...this.#places].map((p) => (p === this.#place ? `* ${p}` : `  ${p}`)).join("\n"),
        );
        return undefined;
      case "help":
        this.#options.print(CONSOLE_HELP);
        return undefined;
      case "quit":
        return false;
      case "invalid":
        this.#options.print(`(${action.problem})`);
        return undefined;
    }
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const id = `b-${this.#nextId()}`;
    this.#remember(id);
    const place = placeOf(message.conversation);
    this.#places.add(place);
    const text = this.#options.renderMarkdown?.(message.text) ?? message.text;
    this.#options.print(`[${place}] ${message.agent ?? "switchboard"} (${id})> ${text}`);
    return { id, conversation: message.conversation };
  }

  async #send(text: string, replyTo?: string): Promise<string> {
    if (!this.#sink) throw new Error("the console adapter is not started");
    const id = `c-${this.#nextId()}`;
    const inChannel = this.#place.startsWith("#") && !this.#place.includes("/");
    const mentionsBot = MENTION.test(text);
    const path = this.#place.split("/");
    // A mention at channel level starts a thread rooted at the mentioning message.
    const conversation: ConversationRef = {
      platform: this.platform,
      path: inChannel && mentionsBot && !replyTo ? [...path, id] : path,
    };
    await this.#sink({
      id,
      conversation,
      author: { id: this.#options.userId, displayName: this.#options.userId, isBot: false, isSelf: false },
      text,
      isDirect: !this.#place.startsWith("#"),
      mentionsBot,
      isEdit: false,
      sentAt: Date.now(),
      ...(replyTo === undefined ? {} : { replyTo }),
    });
    return id;
  }

  async #switchTo(place: string): Promise<void> {
    this.#place = place;
    this.#places.add(place);
    await this.#options.state.set("place", place);
    this.#options.print(`(now in ${place})`);
  }

  #remember(id: string): void {
    this.#posted.set(id, true);
  }

  #nextId(): string {
    this.#sequence += 1;
    return `${this.#idPrefix}${this.#sequence}`;
  }
}

function placeOf(conversation: ConversationRef): string {
  return conversation.path.join("/");
}
