import { describe, expect, it } from "vitest";
import { writeInOrder } from "./in-order.ts";

/** Runs writeInOrder with a first write held open; says whether the second started before it landed. */
async function secondStartedEarly(writesLandTogether: boolean | undefined): Promise<boolean> {
  let land: () => void = () => {};
  let firstLanded = false;
  let startedEarly = false;
  const first = () =>
    new Promise<void>((resolve) => {
      land = () => {
        firstLanded = true;
        resolve();
      };
    });
  const then = async () => {
    startedEarly = !firstLanded;
  };
  const written = writeInOrder(writesLandTogether === undefined ? {} : { writesLandTogether }, first, then);
  await new Promise((resolve) => setImmediate(resolve));
  land();
  await written;
  return startedEarly;
}

describe("writeInOrder", () => {
  it("sends both writes at once where the store lands them in one commit", async () => {
    expect(await secondStartedEarly(true)).toBe(true);
  });

  it.each([false, undefined])(
    "elsewhere (writesLandTogether %s) sends the second once the first landed",
    async (flag) => {
      expect(await secondStartedEarly(flag)).toBe(false);
    },
  );

  it("fails with either write's failure", async () => {
    const failing = () => Promise.reject(new Error("store down"));
    const fine = () => Promise.resolve();
    await expect(writeInOrder({ writesLandTogether: true }, fine, failing)).rejects.toThrow("store down");
    await expect(writeInOrder({}, failing, fine)).rejects.toThrow("store down");
  });
});
