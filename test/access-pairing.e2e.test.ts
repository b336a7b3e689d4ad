/**
 * Access policies and DM pairing on each platform, through its real SDK and stand-in: an unknown
 * person's direct message gets a code and nothing else; once an admin approves the code their next
 * message is answered; a revoked approval stops it (a new code); an expired code is refused; a
 * channel outside `groups: allowlist` gets no answer.
 */
import { join } from "node:path";
import { type AcceptOutcome, Engine, type InboundMessage, openStore, type Store } from "@switchboard/core";
import { accessConfigSchema } from "@switchboard/core/config";
import { AccessGate, Pairings } from "@switchboard/core/host";
import { type AdapterHarness, scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { fakeClock, tempDirectory } from "../packages/core/src/store/test-backends.ts";
import { createDiscordHarness } from "./support/discord/contract-harness.ts";
import { createMatrixHarness } from "./support/matrix/contract-harness.ts";
import { createSlackHarness } from "./support/slack/slack-harness.ts";

const HARNESSES: Record<string, () => Promise<AdapterHarness>> = {
  slack: () => createSlackHarness("socket"),
  discord: () => createDiscordHarness(),
  matrix: () => createMatrixHarness(),
};

const CODE = /\*{0,2}([A-Z0-9]{4}-[A-Z0-9]{4})\*{0,2}/;

for (const [platform, createHarness] of Object.entries(HARNESSES)) {
  describe(`access on ${platform}`, () => {
    let harness: AdapterHarness | undefined;
    let store: Store | undefined;
    let engine: Engine | undefined;
    let removeDir: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await engine?.stop();
      await harness?.close();
      await store?.close();
      await removeDir?.();
      harness = undefined;
      engine = undefined;
      store = undefined;
    });

    async function setUp(policy: Record<string, unknown>) {
      harness = await createHarness();
      const dir = await tempDirectory();
      removeDir = dir.remove;
      store = await openStore(`sqlite://${join(dir.path, "access.db")}`);
      const clock = fakeClock();
      const config = accessConfigSchema.parse({ [platform]: policy, pairingCodeMinutes: 30 });
      const pairings = new Pairings({ store, clock, codeMinutes: 30, reminderMinutes: 10 });
      const access = new AccessGate({ config, admins: [], pairings, clock });
      const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
      const outcomes: { message: InboundMessage; outcome: AcceptOutcome }[] = [];
      engine = new Engine({ store, adapters: [harness.adapter], responder, access });
      const started = harness;
      await harness.adapter.start(async (message) => {
        outcomes.push({ message, outcome: await (engine as Engine).accept(message) });
      });
      const outcomeOf = (id: string) =>
        waitFor(
          `message ${id} to reach the engine`,
          () => outcomes.filter((entry) => entry.message.id === id).at(-1)?.outcome,
        );
      const postsTo = (id: string) => started.posts().filter((post) => post.replyTo === id);
      const codeIn = (id: string) =>
        waitFor(`a pairing code in reply to ${id}`, () => CODE.exec(postsTo(id)[0]?.text ?? "")?.[1]);
      return { clock, pairings, responder, outcomeOf, postsTo, codeIn, harness: started };
    }

    it("pairs an unknown direct-message sender by code, and revokes", async () => {
      const {
        pairings,
        responder,
        outcomeOf,
        postsTo,
        codeIn,
        harness: h,
        clock,
      } = await setUp({
        dm: "pairing",
      });
      const first = await h.userSays({ place: "dm", text: "hello bot" });
      expect(await outcomeOf(first)).toEqual({ accepted: false, reason: "pairing" });
      const code = await codeIn(first);
      expect(postsTo(first)[0]?.text).toContain("pair");
      // A second message while waiting: no answer, no second code.
      const second = await h.userSays({ place: "dm", text: "hello again" });
      expect(await outcomeOf(second)).toEqual({ accepted: false, reason: "pairing" });
      expect(postsTo(second)).toEqual([]);
      expect(responder.turns).toEqual([]);

      const [waiting] = await pairings.pending();
      expect(waiting?.platform).toBe(platform);
      expect((await pairings.approve(code.toLowerCase(), "an admin")).outcome).toBe("approved");
      const third = await h.userSays({ place: "dm", text: "now a question" });
      expect((await outcomeOf(third)).accepted).toBe(true);
      await waitFor("the answer after approval", () => postsTo(third)[0]);
      expect(postsTo(third)[0]?.text).toContain("echo: now a question");

      await pairings.revoke(platform, waiting?.userId ?? "");
      const fourth = await h.userSays({ place: "dm", text: "still there?" });
      expect(await outcomeOf(fourth)).toEqual({ accepted: false, reason: "pairing" });
      const newCode = await codeIn(fourth);
      expect(newCode).not.toBe(code);

      // Not approved in time: the code expires and is refused; the next message gets a new one.
      await clock.advance(31 * 60_000);
      expect((await pairings.approve(newCode, "an admin")).outcome).toBe("expired");
      const fifth = await h.userSays({ place: "dm", text: "hello?" });
      expect(await outcomeOf(fifth)).toEqual({ accepted: false, reason: "pairing" });
      expect(await codeIn(fifth)).not.toBe(newCode);
      expect(responder.turns.map((turn) => turn.text)).toEqual(["now a question"]);
    });

    it("answers only in listed places with groups: allowlist, and no DMs when disabled", async () => {
      const {
        responder,
        outcomeOf,
        postsTo,
        harness: h,
      } = await setUp({
        dm: "disabled",
        groups: "allowlist",
        places: ["nowhere-listed"],
      });
      const inChannel = await h.userSays({ place: "channel", text: "hello", mention: true });
      expect(await outcomeOf(inChannel)).toEqual({ accepted: false, reason: "not-allowed" });
      const direct = await h.userSays({ place: "dm", text: "hello" });
      expect(await outcomeOf(direct)).toEqual({ accepted: false, reason: "not-allowed" });
      expect(postsTo(inChannel)).toEqual([]);
      expect(postsTo(direct)).toEqual([]);
      expect(responder.turns).toEqual([]);
    });
  });
}
