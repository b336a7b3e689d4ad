import { createMemoryLogger } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { MatrixSendError } from "../errors.ts";
import { EventSender } from "./event-sender.ts";

/** Shaped like what matrix-bot-sdk throws for an error body (MatrixError). */
function matrixError(statusCode: number, errcode: string, retryAfterMs?: number) {
  return Object.assign(new Error(errcode), { statusCode, errcode, retryAfterMs, body: { errcode } });
}

function senderWith(answers: (unknown | Error)[]) {
  const paths: string[] = [];
  const sleeps: number[] = [];
  const sender = new EventSender({
    logger: createMemoryLogger(),
    newTransactionId: () => `txn${paths.length === 0 ? "" : "-should-not-change"}`,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    request: async (_method, path) => {
      paths.push(path);
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { sender, paths, sleeps };
}

describe("EventSender", () => {
  it("retries a rate limit after retry_after_ms with the same transaction id", async () => {
    const { sender, paths, sleeps } = senderWith([
      matrixError(429, "M_LIMIT_EXCEEDED", 250),
      { event_id: "$ok" },
    ]);
    expect(await sender.send("!room:hs", "m.room.message", { body: "hi" })).toBe("$ok");
    expect(paths).toEqual([
      "/_matrix/client/v3/rooms/!room%3Ahs/send/m.room.message/txn",
      "/_matrix/client/v3/rooms/!room%3Ahs/send/m.room.message/txn",
    ]);
    expect(sleeps).toEqual([250]);
  });

  it("gives up on a final error with an actionable message", async () => {
    const { sender, paths } = senderWith([matrixError(403, "M_FORBIDDEN")]);
    await expect(sender.send("!room:hs", "m.room.message", {})).rejects.toThrow(
      /could not post to !room:hs after 1 attempt\(s\): M_FORBIDDEN/,
    );
    expect(paths).toHaveLength(1);
  });

  it("stops after the last attempt", async () => {
    const { sender, paths } = senderWith(Array.from({ length: 10 }, () => matrixError(502, "M_UNKNOWN")));
    await expect(sender.send("!room:hs", "m.room.message", {})).rejects.toBeInstanceOf(MatrixSendError);
    expect(paths).toHaveLength(6);
  });
});
