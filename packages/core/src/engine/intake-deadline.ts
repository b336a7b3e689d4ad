/**
 * Intake answers the platform only once a message is durable. When the store does not answer
 * (Redis stopped, paused or failing over: its client keeps commands in an offline queue until it
 * reconnects), waiting would hold the platform's request open past its own timeout. So intake
 * refuses after a deadline: Slack gets a non-2xx and delivers the event again, the Matrix sync does
 * not move past the event. The store call may still complete later; the dedupe mark it writes with
 * the message makes the platform's redelivery a copy, so the message is answered once either way.
 */

/** The store did not confirm a message within the intake deadline; nothing was acknowledged. */
export class StoreUnavailableError extends Error {
  constructor(deadlineMs: number) {
    super(
      `the store did not confirm the message within ${deadlineMs} ms (is it reachable?); not accepted, the platform delivers it again`,
    );
    this.name = "StoreUnavailableError";
  }
}

/** `work`, or a `StoreUnavailableError` once `deadlineMs` passed without it settling. */
export async function withIntakeDeadline<Result>(work: Promise<Result>, deadlineMs: number): Promise<Result> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(deadlineMs)), deadlineMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
