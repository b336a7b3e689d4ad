import type { NativeTextStream } from "../conversation/adapter.ts";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";
import { chunkMarkdown } from "../delivery/chunk.ts";
import { previewText } from "./preview-text.ts";
import type { TurnEvent } from "./turn-events.ts";

/** The platform calls a streamed answer needs; an adapter with streaming on provides them. */
export interface ReplySurface {
  post(message: OutboundMessage): Promise<PostedMessage>;
  /** `agent`: who writes the text now (after a handoff, not the agent the message was posted by). */
  edit(posted: PostedMessage, text: string, agent?: string): Promise<void>;
  openStream?(message: OutboundMessage): NativeTextStream;
  showProgress?(conversation: ConversationRef, status: string): Promise<boolean>;
}

export interface StreamingReplyOptions {
  readonly surface: ReplySurface;
  /** Where the answer goes; `text` is filled in per message. */
  readonly target: Omit<OutboundMessage, "text">;
  readonly maxMessageLength: number;
  /** Least time between two calls that change the thread. */
  readonly intervalMs: number;
  /**
   * How long after the turn's first event the first preview waits. An answer complete by then is
   * not previewed at all: it is posted once, whole, instead of posted, stopped and replaced — three
   * platform calls, spaced `intervalMs` apart, while the turn holds its slot. 0: preview at once.
   */
  readonly firstPreviewDelayMs?: number;
  readonly progress: boolean;
  /** Messages an earlier attempt of this turn already streamed into (after a crash): reused, in order. */
  readonly resumed?: readonly PostedMessage[];
  /** Every newly posted message, with all of them so far (to index and record them). */
  readonly onPosted: (posted: PostedMessage, all: readonly PostedMessage[]) => Promise<void>;
  /** After `finish` has shown the final text. */
  readonly onFinished?: () => Promise<void>;
  /** A preview that could not be shown; the answer still ends complete. */
  readonly onPreviewError: (error: unknown) => void;
  readonly now?: () => number;
}

interface Slot {
  posted?: PostedMessage;
  /** What the platform shows in this message now; undefined when unknown (resumed after a crash). */
  shown?: string;
  native?: NativeTextStream;
  /** The raw text appended to the native stream so far. */
  appended?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One answer shown as it is written: the first text is posted at once, then the same message is
 * edited as the text grows — at most one platform call per interval, so the platform's rate limits
 * are never hit — and continued in a new message when it outgrows one. `finish` makes the messages
 * say exactly the final text, whatever the previews showed.
 */
export class StreamingReply {
  readonly #options: StreamingReplyOptions;
  readonly #slots: Slot[];
  readonly #now: () => number;
  #text = "";
  /** The agent whose text is shown (the answering agent, once it writes). */
  #agent: string | undefined;
  #progress: string | undefined;
  #dirty = false;
  #flushing: Promise<void> | undefined;
  #lastCallAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  #pendingProgress: Promise<void> = Promise.resolve();
  #firstEventAt: number | undefined;
  /** The answer is complete (no tool call follows): nothing not yet shown needs a preview. */
  #complete = false;
  /** Ends the first preview's wait early (the answer completed, or the stream closed). */
  #wake: (() => void) | undefined;

  constructor(options: StreamingReplyOptions) {
    this.#options = options;
    this.#slots = (options.resumed ?? []).map((posted) => ({ posted }));
    this.#now = options.now ?? Date.now;
  }

  /** The messages the answer is in so far. */
  get posted(): PostedMessage[] {
    return this.#slots.flatMap((slot) => (slot.posted ? [slot.posted] : []));
  }

  /** The answer's text so far (without progress lines). */
  get text(): string {
    return this.#text;
  }

  accept(event: TurnEvent): void {
    if (this.#closed) return;
    this.#firstEventAt ??= this.#now();
    if (event.kind === "complete") {
      this.#complete = true;
      this.#wake?.();
      return;
    }
    if (event.kind === "text") {
      this.#text += event.delta;
      this.#agent = event.agent;
      this.#progress = undefined;
    } else if (event.kind === "discard") {
      this.#text = "";
    } else {
      if (!this.#options.progress) return;
      const { surface, target } = this.#options;
      const showProgress = surface.showProgress;
      if (showProgress) {
        this.#pendingProgress = this.#pendingProgress
          .then(async () => {
            if (await showProgress(target.conversation, event.status)) return;
            // The platform cannot show it here: it goes under the text instead.
            if (this.#closed) return;
            this.#progress = event.status;
            this.#schedule();
          })
          .catch(this.#options.onPreviewError);
        return;
      }
      this.#progress = event.status;
    }
    this.#schedule();
  }

  /**
   * Stops previewing and hands over the messages shown so far, ready to be replaced by the final
   * text (a native stream is stopped first: only then can its message be edited). Waits out the
   * interval, so the replacing calls stay within the platform's rate limit too.
   */
  async close(): Promise<PostedMessage[]> {
    this.#closed = true;
    this.#wake?.();
    await this.#flushing;
    await this.#pendingProgress;
    for (const slot of this.#slots) {
      const native = slot.native;
      if (!native) continue;
      slot.native = undefined;
      await this.#remember(slot, await this.#spaced(() => native.stop()));
    }
    await this.#untilNextCallAllowed();
    return this.posted;
  }

  /**
   * Without an outbox: stops previewing and makes the messages say exactly `text` (posting what
   * does not fit yet). Undefined when nothing was shown: the caller delivers the ordinary way.
   */
  async finish(text: string): Promise<PostedMessage[] | undefined> {
    await this.close();
    if (this.#slots.length === 0) {
      await this.forget();
      return undefined;
    }
    const chunks = text.trim() === "" ? [] : chunkMarkdown(text, this.#options.maxMessageLength);
    for (const [index, chunk] of chunks.entries()) await this.#show(index, chunk, true);
    // Previews never run longer than the answer they preview, except when it was taken back
    // (a retried model call): the messages past the answer's end are cleared, not left stale.
    for (let index = chunks.length; index < this.#slots.length; index++) await this.#show(index, "…", true);
    await this.forget();
    return this.posted;
  }

  /** The answer is delivered for good: the record kept for a re-run after a crash goes. */
  async forget(): Promise<void> {
    await this.#options.onFinished?.();
  }

  /** Stops previewing without touching the thread (shutdown: the turn runs again after restart). */
  async abandon(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#flushing;
  }

  #schedule(): void {
    this.#dirty = true;
    if (this.#flushing) return;
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
      // Text that arrived after the loop's last look, before this ran.
      if (this.#dirty && !this.#closed) this.#schedule();
    });
  }

  async #flush(): Promise<void> {
    if (this.#slots.length === 0 && !(await this.#firstPreviewDue())) {
      this.#dirty = false;
      return;
    }
    while (this.#dirty && !this.#closed) {
      // Waited out before the text is read, so each call shows the latest text, not the text of
      // the moment the previous call ended.
      await this.#untilNextCallAllowed();
      if (this.#closed) return;
      this.#dirty = false;
      const preview = previewText(this.#text, this.#progress);
      if (preview === "") continue;
      try {
        const chunks = chunkMarkdown(preview, this.#options.maxMessageLength);
        for (const [index, chunk] of chunks.entries()) {
          if (this.#closed) return;
          await this.#show(index, chunk, false);
        }
      } catch (error) {
        this.#options.onPreviewError(error);
      }
    }
  }

  /** Makes message `index` show `text`: appended, edited or posted, one spaced platform call each. */
  async #show(index: number, text: string, final: boolean): Promise<void> {
    const { surface } = this.#options;
    const slot = this.#slots[index];
    const native = slot?.native;
    if (slot && native) {
      const appended = slot.appended ?? "";
      const raw = index === 0 ? this.#text : "";
      if (!final && raw.startsWith(appended) && raw.length <= this.#options.maxMessageLength) {
        if (raw === appended) return;
        await this.#spaced(() => native.append(raw.slice(appended.length)));
        slot.appended = raw;
        return;
      }
      // Appending can only grow the text: anything else (the final text, a discard) is an edit.
      slot.native = undefined;
      const stopped = await this.#spaced(() => native.stop());
      await this.#remember(slot, stopped);
    }
    if (slot?.posted) {
      if (slot.shown === text) return;
      const posted = slot.posted;
      const agent = this.#agent;
      await this.#spaced(() => surface.edit(posted, text, agent));
      slot.shown = text;
      return;
    }
    if (slot) return; // a native stream the platform has not created yet cannot be edited
    const raw = this.#text;
    if (!final && index === 0 && surface.openStream && raw !== "" && this.#slots.length === 0) {
      const opened = surface.openStream({ ...this.#target(), text: "" });
      const fresh: Slot = { native: opened, appended: raw };
      this.#slots[index] = fresh;
      const created = await this.#spaced(() => opened.append(raw));
      if (created) await this.#remember(fresh, created);
      return;
    }
    const posted = await this.#spaced(() => surface.post({ ...this.#target(), text }));
    const fresh: Slot = { shown: text };
    this.#slots[index] = fresh;
    await this.#remember(fresh, posted);
  }

  /** Where the text goes, signed by the agent writing it (known from its first words). */
  #target(): Omit<OutboundMessage, "text"> {
    const { target } = this.#options;
    return this.#agent === undefined ? target : { ...target, agent: this.#agent };
  }

  async #remember(slot: Slot, posted: PostedMessage): Promise<void> {
    const known = slot.posted?.id === posted.id;
    slot.posted = posted;
    if (!known) await this.#options.onPosted(posted, this.posted);
  }

  /** Waits out the first preview's delay; false when no preview is wanted any more. */
  async #firstPreviewDue(): Promise<boolean> {
    const delay =
      (this.#firstEventAt ?? this.#now()) + (this.#options.firstPreviewDelayMs ?? 0) - this.#now();
    if (delay > 0 && !this.#complete) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(wake, delay);
        this.#wake = wake;
      });
    }
    return !this.#closed && !(this.#complete && (this.#options.firstPreviewDelayMs ?? 0) > 0);
  }

  async #untilNextCallAllowed(): Promise<void> {
    const wait = this.#lastCallAt + this.#options.intervalMs - this.#now();
    if (wait > 0) await sleep(wait);
  }

  async #spaced<T>(call: () => Promise<T>): Promise<T> {
    await this.#untilNextCallAllowed();
    try {
      return await call();
    } finally {
      this.#lastCallAt = this.#now();
    }
  }
}
