import type { Store } from "./types.ts";

/**
 * Two writes whose order matters only for what a crash between them would leave (a record before
 * the index that names it): `first`, then `then` once `first` has landed — or both sent at once on
 * a store that lands writes sent together in one commit (`Store.writesLandTogether`), where a crash
 * keeps both or neither and the caller waits for one commit instead of two.
 */
export async function writeInOrder(
  store: Pick<Store, "writesLandTogether">,
  first: () => Promise<unknown>,
  then: () => Promise<unknown>,
): Promise<void> {
  if (store.writesLandTogether === true) {
    await Promise.all([first(), then()]);
    return;
  }
  await first();
  await then();
}
