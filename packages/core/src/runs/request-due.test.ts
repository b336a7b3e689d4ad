import { describe, expect, it } from "vitest";
import { dueAction, nextDueAt, type RequestTimeouts } from "./request-due.ts";
import type { RequestRecord, RequestStatus } from "./request-record.ts";

const timeouts: RequestTimeouts = {
  noticeAfterSeconds: 60,
  timeoutSeconds: 300,
  approvalTimeoutSeconds: 3_600,
  retentionDays: 7,
};

const request = (status: RequestStatus, noticeSent = false): RequestRecord => ({
  id: "req-1",
  conversationKey: "slack:T1:C1:1.1",
  origin: { conversation: { platform: "slack", path: ["T1", "C1", "1.1"] }, messageId: "m1", authorId: "u1" },
  agent: null,
  status,
  createdAt: 0,
  updatedAt: 0,
  waitingSince: 1_000,
  noticeSent,
  runs: [],
});

describe("request due times", () => {
  it.each([
    ["active, no notice yet", request("active"), 61_000],
    ["active, notice sent", request("active", true), 301_000],
    ["waiting for an external job", request("awaiting_external"), 61_000],
    ["waiting for approval (no notice)", request("awaiting_approval"), 3_601_000],
  ])("%s is next due at its notice or limit", (_label, record, dueAt) => {
    expect(nextDueAt(record, timeouts)).toBe(dueAt);
  });

  it("uses the timeout when it comes before the notice", () => {
    expect(nextDueAt(request("active"), { ...timeouts, noticeAfterSeconds: 600 })).toBe(301_000);
  });

  it.each([
    ["before the notice", request("active"), 60_999, "nothing"],
    ["at the notice", request("active"), 61_000, "notice"],
    ["notice already sent", request("active", true), 200_000, "nothing"],
    ["at the limit", request("active", true), 301_000, "time-out"],
    ["approval past the plain limit", request("awaiting_approval"), 301_000, "nothing"],
    ["approval at its own limit", request("awaiting_approval"), 3_601_000, "time-out"],
    ["closed", request("completed"), 9_999_999, "nothing"],
  ] as const)("%s → %s", (_label, record, now, action) => {
    expect(dueAction(record, timeouts, now)).toBe(action);
  });

  it("never leaves a request due once its action is done", () => {
    const waiting = request("active");
    const dueAt = nextDueAt(waiting, timeouts);
    expect(dueAction(waiting, timeouts, dueAt)).toBe("notice");
    const noticed = { ...waiting, noticeSent: true };
    expect(nextDueAt(noticed, timeouts)).toBeGreaterThan(dueAt);
  });
});
