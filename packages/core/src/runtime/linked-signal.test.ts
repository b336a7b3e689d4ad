import { describe, expect, it } from "vitest";
import { linkSignals } from "./linked-signal.ts";

describe("linkSignals", () => {
  it("aborts with the reason of the source that aborted first", () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals([first.signal, second.signal]);
    second.abort("stopping");
    first.abort("cancelled");
    expect(linked.signal.reason).toBe("stopping");
  });

  it("starts aborted when a source already is", () => {
    const linked = linkSignals([new AbortController().signal, AbortSignal.abort("gone")]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("gone");
  });

  it("no longer follows its sources once unlinked", () => {
    const source = new AbortController();
    const linked = linkSignals([source.signal]);
    linked.unlink();
    source.abort("later");
    expect(linked.signal.aborted).toBe(false);
  });
});
