/** An error answer of the stand-in: a Matrix error body, or plain text as a reverse proxy gives. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown> | string;
  constructor(status: number, errcode: string, error: string, extra: Record<string, unknown> = {}) {
    super(`${errcode}: ${error}`);
    this.status = status;
    this.body = errcode === "" ? error : { errcode, error, ...extra };
  }

  static plain(status: number, text: string): HttpError {
    return new HttpError(status, "", text);
  }
}
