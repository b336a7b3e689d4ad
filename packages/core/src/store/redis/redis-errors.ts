import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from "@redis/client";

const CONNECTION_ERRORS = [
  SocketClosedUnexpectedlyError,
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketTimeoutError,
];

/**
 * What a Redis client reported as its connection's failure on its `error` event. A socket that
 * closes cleanly fails the commands on the wire with `SocketClosedUnexpectedlyError`, but one that
 * errs (a reset: the server killed, a proxy or the network dropping the connection) fails them
 * with the socket's own error — a bare `read ECONNRESET` — after emitting that same object. Noted
 * here, it is known for the client's; any other ECONNRESET (a model's connection) is not.
 */
const socketFailures = new WeakSet<object>();

/** Notes an error a Redis client emitted (`client.on("error", …)`): commands failed with it are an outage. */
export function noteRedisSocketFailure(error: unknown): void {
  if (typeof error === "object" && error !== null) socketFailures.add(error);
}

/**
 * True when a Redis command failed because the connection did (the server went away while the
 * command was on the wire, the client gave up reconnecting), or the server was not ready to serve
 * (`isServerNotReady`): the server, not the command, failed.
 * Commands issued while the client is reconnecting wait in its offline queue and never see these.
 */
export function isRedisConnectionError(error: unknown): boolean {
  return (
    CONNECTION_ERRORS.some((type) => error instanceof type) ||
    (typeof error === "object" && error !== null && socketFailures.has(error)) ||
    isServerNotReady(error)
  );
}

/**
 * Replies a server gives while it cannot serve yet, whatever the command: loading its data after a
 * restart (commands queued while the client reconnected reach it then), a failover under way, a
 * script running too long. The server, not the command, failed: the work is tried again.
 */
const NOT_READY = /^(LOADING|MASTERDOWN|TRYAGAIN|BUSY|READONLY) /;

function isServerNotReady(error: unknown): boolean {
  return error instanceof ErrorReply && NOT_READY.test(error.message);
}
