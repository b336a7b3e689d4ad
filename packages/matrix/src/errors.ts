/** The homeserver refused our credentials, or they do not fit the configuration. */
export class MatrixAuthError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MatrixAuthError";
  }
}

/** The homeserver could not be reached or answered with something we cannot use. */
export class MatrixConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MatrixConnectionError";
  }
}

/** An event could not be posted, after every retry the failure allowed. */
export class MatrixSendError extends Error {
  readonly roomId: string;
  constructor(roomId: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MatrixSendError";
    this.roomId = roomId;
  }
}

/** We were asked to post into an encrypted room without working encryption: we never post plaintext there. */
export class EncryptedRoomError extends Error {
  readonly roomId: string;
  constructor(roomId: string, reason: string) {
    super(
      `room ${roomId} is encrypted and end-to-end encryption is not active (${reason}); not posting plaintext`,
    );
    this.name = "EncryptedRoomError";
    this.roomId = roomId;
  }
}

/**
 * A send-only process was configured to encrypt with no way to reach the bot's device: the keys
 * live with the process that syncs, and two processes driving one device would corrupt its
 * sessions, so a send-only process encrypts through the one that syncs (`encryptThroughLeader`).
 */
export class MatrixSendOnlyEncryptionError extends Error {
  constructor() {
    super(
      "matrix.encryption is on, but this send-only process has no way to reach the process that holds the bot's device (the one that syncs) to encrypt through it; run it as a worker of a cluster (role worker), or run Switchboard with role all",
    );
    this.name = "MatrixSendOnlyEncryptionError";
  }
}

/** The process that syncs did not encrypt an event for a send-only process: nothing was posted. */
export class MatrixEncryptionRelayError extends Error {
  readonly roomId: string;
  constructor(roomId: string, reason: string, options?: { cause?: unknown }) {
    super(
      `could not encrypt for ${roomId} through the process that holds the bot's device (${reason}); nothing was posted, never plaintext`,
      options,
    );
    this.name = "MatrixEncryptionRelayError";
    this.roomId = roomId;
  }
}
