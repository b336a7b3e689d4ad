import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
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
 * command was on the wire, the client gave up reconnecting): the server, not the command, failed.
 * Commands issued while the client is reconnecting wait in its offline queue and never see these.
 */
export function isRedisConnectionError(error: unknown): boolean {
  return CONNECTION_ERRORS.some((type) => error instanceof type);
}
