import { RecordingAdapter } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { PlatformActivity } from "./platform-activity.ts";

/** A platform whose reachability check counts how often it was asked. */
class CountedAdapter extends RecordingAdapter {
  checks = 0;
  async check(): Promise<{ warnings: string[] }> {
    this.checks += 1;
    return { warnings: [] };
  }
}

describe("platform probes", () => {
  it("asks the platform once per five seconds however often the health page is read", async () => {
    const adapter = new CountedAdapter({ platform: "slack" });
    const activity = new PlatformActivity();
    activity.watch(adapter);

    await activity.states(1_000);
    await activity.states(1_000 + 4_999);
    expect(adapter.checks).toBe(1);

    const [later] = await activity.states(1_000 + 5_001);
    expect(adapter.checks).toBe(2);
    expect(later).toMatchObject({ platform: "slack", state: "connected", checkedAt: 6_001 });
  });
});
