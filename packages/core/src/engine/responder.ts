import type { OutboundFile, PreparedAttachments } from "../attachments/stored-attachment.ts";
import type { ApprovalPrompt } from "../conversation/approvals.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";
import type { Delivery } from "../delivery/deliverer.ts";
import type { DeliveryOutcome } from "../outbox/work-outbox.ts";
import type { TurnEventListener } from "../streaming/turn-events.ts";

/** One turn: the text to answer in one conversation, on behalf of the message that asked. */
export interface Turn {
  readonly key: string;
  readonly conversation: ConversationRef;
  /** The message being answered (the last one, when several were collected into one turn). */
  readonly message: InboundMessage;
  /** What to answer: the message text, several collected texts, or a command's follow-on text. */
  readonly text: string;
  /** Aborted by `/stop`, shutdown, or a lost lock; responders pass it to every model call. */
  readonly signal: AbortSignal;
  /** Names this unit of queued work across attempts (a retry after a crash has the same id). */
  readonly workId: string;
  /** Sees the answer as it is written and what the team is doing, when the platform shows it live. */
  readonly onEvent?: TurnEventListener;
  /** The command prefix that works on this platform, for texts that tell people what to type. Default `/`. */
  readonly commandPrefix?: string;
  /** What the messages' files give the model (text, image references, what was skipped). */
  readonly attachments?: PreparedAttachments;
  /** Where an agent's messages while it works go (`send_message`); absent: it cannot send any. */
  readonly interim?: InterimMessages;
}

/**
 * Messages an agent posts while its turn goes on (`send_message`), through the work's outbox: each
 * under a key that names it across attempts, so a re-run of the turn never posts one twice.
 */
export interface InterimMessages {
  /** Interim messages recorded for this unit of work so far, by any attempt. */
  count(): number;
  /** Whether the message of this key is recorded already (an earlier attempt posted it, or began to). */
  has(key: string): boolean;
  /** Posts now, before the answer (a streamed preview is closed first, and the answer follows below it). */
  post(message: {
    readonly key: string;
    readonly text: string;
    readonly agent: string;
  }): Promise<DeliveryOutcome>;
}

export interface TurnAnswer {
  /** Markdown for the thread. Empty when the responder has nothing to say now (e.g. waiting for approval). */
  readonly text: string;
  /** Which agent answered, for the console and logs. */
  readonly agent?: string;
  /** Nothing to say by design (a person has the thread): an empty text is not a failure to answer. */
  readonly silent?: boolean;
  /** The answer asks for approval: its last message carries the platform's Approve / Deny controls. */
  readonly approval?: ApprovalPrompt;
  /**
   * The conversation's live history after the turn, ≈ tokens, when the responder knows it: memory
   * then decides whether to compact without reading the history back.
   */
  readonly historyTokens?: number;
  /** Files the team made or its tools returned, sent after the text as native uploads. */
  readonly files?: readonly OutboundFile[];
}

/** Whatever produces answers: the agent team, or a scripted stand-in in tests. */
export interface Responder {
  respond(turn: Turn): Promise<TurnAnswer>;
}

/** Sees each turn after its answer was delivered (memory, metrics). Not awaited by the turn. */
export interface TurnObserver {
  afterDelivery?(turn: Turn, answer: TurnAnswer): void;
  /** Finishes pending work before shutdown. */
  close?(): Promise<void>;
}

/**
 * Queued work for a conversation that is not a user's message — a follow-up run, a resumed
 * approval, an external job's result. It waits its turn in the conversation's queue like a message,
 * so it is ordered with the conversation's turns and survives a restart.
 */
export interface Continuation {
  /**
   * Names the continuation when whoever queues it may queue it again after a crash (the same run's
   * follow-up, the same webhook event): queued once per id. Absent: every call queues one.
   */
  readonly id?: string;
  readonly requestId: string;
  readonly type: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export interface ContinuationWork {
  readonly key: string;
  readonly continuation: Continuation;
  readonly signal: AbortSignal;
  /** Names this unit of queued work across attempts. */
  readonly workId: string;
  /**
   * Posts through the work's outbox: recorded before posting, never posted twice by a retry.
   * Resolves with whether it was posted or given up after its retries (a place the bot left).
   */
  readonly deliver: (delivery: Delivery) => Promise<DeliveryOutcome>;
  /** As `Turn.interim`. */
  readonly interim?: InterimMessages;
  /** As `Turn.commandPrefix`. */
  readonly commandPrefix?: string;
}

export interface ContinuationHandler {
  /** Runs it and delivers what it produces; errors are the handler's to report. */
  continue(work: ContinuationWork): Promise<void>;
}
