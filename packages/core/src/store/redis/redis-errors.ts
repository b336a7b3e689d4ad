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
 * True when a Redis command failed because the connection did (the server went away while the
 * command was on the wire, the client gave up reconnecting), or the server was not ready to serve
 * (`isServerNotReady`): the server, not the command, failed.
 * Commands issued while the client is reconnecting wait in its offline queue and never see these.
 */
export function isRedisConnectionError(error: unknown): boolean {
  return CONNECTION_ERRORS.some((type) => error instanceof type) || isServerNotReady(error);
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
