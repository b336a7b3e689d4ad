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
 * A send-only worker was configured to encrypt: the bot device's keys live with the process that
 * syncs, and two processes driving one device would corrupt its sessions.
 */
export class MatrixSendOnlyEncryptionError extends Error {
  constructor() {
    super(
      "matrix.encryption is on, but a worker cannot encrypt (the bot device's keys live in the process that syncs); set matrix.encryption: false, or run Switchboard with role all",
    );
    this.name = "MatrixSendOnlyEncryptionError";
  }
}
