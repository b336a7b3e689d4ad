import { describe, expect, it } from "vitest";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import type { ApprovalDecider } from "./approvals.ts";
import { delegateTo } from "./delegating-adapter.ts";

/** A platform adapter with every setting and ability, each call noted on the instance (`this`). */
class FullAdapter extends RecordingAdapter {
  readonly exclusiveInbound = true;
  readonly repliesNameTheirTarget = false;
  readonly streaming = { editIntervalMs: 500, progress: true };
  readonly calls: string[] = [];

  constructor() {
    super({ platform: "matrix", commandPrefix: "!" });
  }
  async check() {
    this.calls.push("check");
    return { warnings: [] };
  }
  useCommands() {
    this.calls.push("useCommands");
  }
  useApprovals(_decider: ApprovalDecider) {
    this.calls.push("useApprovals");
  }
  async startSendOnly() {
    this.calls.push("startSendOnly");
  }
  checkSendOnly() {
    this.calls.push("checkSendOnly");
    return { problems: [], warnings: [] };
  }
  async findPosted() {
    this.calls.push("findPosted");
    return undefined;
  }
  async edit() {
    this.calls.push("edit");
  }
  async showDecision() {
    this.calls.push("showDecision");
  }
  async showProgress() {
    this.calls.push("showProgress");
    return true;
  }
  async describePlace() {
    this.calls.push("describePlace");
    return undefined;
  }
  async userTimeZone() {
    this.calls.push("userTimeZone");
    return "Europe/Berlin";
  }
  placeForPosts(conversation: { platform: string; path: readonly string[] }) {
    this.calls.push("placeForPosts");
    return { post: conversation, channel: conversation };
  }
}

const conversation = { platform: "matrix", path: ["!room"] };
const posted = { id: "$1", conversation };

describe("delegateTo", () => {
  it("keeps every setting of the adapter it wraps", () => {
    const delegate = delegateTo(new FullAdapter());
    expect(delegate.platform).toBe("matrix");
    expect(delegate.limits).toEqual({ maxMessageLength: 2_000 });
    expect(delegate.commandPrefix).toBe("!");
    expect(delegate.repliesNameTheirTarget).toBe(false);
    expect(delegate.exclusiveInbound).toBe(true);
    expect(delegate.streaming).toEqual({ editIntervalMs: 500, progress: true });
  });

  it("calls every ability on the wrapped adapter itself", async () => {
    const inner = new FullAdapter();
    const delegate = delegateTo(inner);
    await delegate.check?.();
    delegate.useCommands?.([]);
    const decider: ApprovalDecider = { decide: () => Promise.reject(new Error("not pressed here")) };
    delegate.useApprovals?.(decider);
    await delegate.startSendOnly?.();
    delegate.checkSendOnly?.();
    await delegate.findPosted?.(conversation, "key");
    await delegate.edit?.(posted, "text");
    await delegate.showDecision?.(posted, "text", { approved: true, by: "alice" });
    await delegate.showProgress?.(conversation, "working");
    await delegate.describePlace?.(conversation);
    expect(await delegate.userTimeZone?.("@alice:hs")).toBe("Europe/Berlin");
    delegate.placeForPosts?.(conversation, undefined);
    await delegate.setTyping?.(conversation, true);
    await delegate.post({ conversation, text: "hello" });
    expect(inner.calls).toEqual([
      "check",
      "useCommands",
      "useApprovals",
      "startSendOnly",
      "checkSendOnly",
      "findPosted",
      "edit",
      "showDecision",
      "showProgress",
      "describePlace",
      "userTimeZone",
      "placeForPosts",
    ]);
    expect(inner.typing).toEqual([{ conversation, active: true }]);
    expect(inner.posts.map((post) => post.text)).toEqual(["hello"]);
  });

  it("offers an optional ability only when the wrapped adapter has it", () => {
    const delegate = delegateTo(new RecordingAdapter());
    expect(delegate.commandPrefix).toBeUndefined();
    for (const ability of [
      "check",
      "edit",
      "findPosted",
      "startSendOnly",
      "showDecision",
      "describePlace",
      "userTimeZone",
      "placeForPosts",
    ])
      expect(ability in delegate, ability).toBe(false);
  });
});
