/** A signal aborted by whichever source aborts first (with its reason), for as long as it is linked. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Removes the listeners from the sources: nothing of this signal stays with them. */
  unlink(): void;
}

/**
 * `AbortSignal.any` for sources that outlive the composed signal (a stop signal that lives as long
 * as the process). Node registers every composed signal with each source in a FinalizationRegistry
 * that lets go only when that source is collected, so `AbortSignal.any([perTurn, stopping])` keeps
 * about 200 bytes per call for the life of `stopping`. Here the link is a listener, removed by
 * `unlink()` (or by the first abort).
 */
export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const links: { source: AbortSignal; onAbort: () => void }[] = [];
  const unlink = () => {
    for (const { source, onAbort } of links) source.removeEventListener("abort", onAbort);
    links.length = 0;
  };
  for (const source of sources) {
    if (source.aborted) {
      unlink();
      controller.abort(source.reason);
      break;
    }
    const onAbort = () => {
      unlink();
      controller.abort(source.reason);
    };
    source.addEventListener("abort", onAbort, { once: true });
    links.push({ source, onAbort });
  }
  return { signal: controller.signal, unlink };
}
