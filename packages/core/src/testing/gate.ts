/** A promise a test resolves when it wants: work waits on `opened` until the test calls `open()`. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
