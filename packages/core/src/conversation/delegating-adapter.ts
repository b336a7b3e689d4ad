import type { Adapter } from "./adapter.ts";

/**
 * An adapter that does exactly what `inner` does: its settings copied, its methods bound to it, each
 * optional one present exactly when `inner` has it. A wrapper (a role's view, the console's
 * recording) spreads it and replaces only what it changes, so no setting or ability of the
 * platform's adapter is lost on the way — the one place that knows every member of `Adapter`.
 */
export function delegateTo(inner: Adapter): Adapter {
  const { check, useCommands, useApprovals, useIdentities, startSendOnly, checkSendOnly, findPosted, edit } =
    inner;
  const { showDecision, showProgress, describePlace, setTyping, userTimeZone, placeForPosts } = inner;
  return {
    platform: inner.platform,
    limits: inner.limits,
    ...(inner.commandPrefix === undefined ? {} : { commandPrefix: inner.commandPrefix }),
    ...(inner.repliesNameTheirTarget === undefined
      ? {}
      : { repliesNameTheirTarget: inner.repliesNameTheirTarget }),
    ...(inner.exclusiveInbound === undefined ? {} : { exclusiveInbound: inner.exclusiveInbound }),
    ...(inner.streaming ? { streaming: inner.streaming } : {}),
    ...(inner.attachments ? { attachments: inner.attachments } : {}),
    ...(inner.files ? { files: inner.files } : {}),
    start: (sink) => inner.start(sink),
    stop: () => inner.stop(),
    post: (message) => inner.post(message),
    ...(check ? { check: check.bind(inner) } : {}),
    ...(useCommands ? { useCommands: useCommands.bind(inner) } : {}),
    ...(useApprovals ? { useApprovals: useApprovals.bind(inner) } : {}),
    ...(useIdentities ? { useIdentities: useIdentities.bind(inner) } : {}),
    ...(startSendOnly ? { startSendOnly: startSendOnly.bind(inner) } : {}),
    ...(checkSendOnly ? { checkSendOnly: checkSendOnly.bind(inner) } : {}),
    ...(findPosted ? { findPosted: findPosted.bind(inner) } : {}),
    ...(edit ? { edit: edit.bind(inner) } : {}),
    ...(showDecision ? { showDecision: showDecision.bind(inner) } : {}),
    ...(showProgress ? { showProgress: showProgress.bind(inner) } : {}),
    ...(describePlace ? { describePlace: describePlace.bind(inner) } : {}),
    ...(setTyping ? { setTyping: setTyping.bind(inner) } : {}),
    ...(userTimeZone ? { userTimeZone: userTimeZone.bind(inner) } : {}),
    ...(placeForPosts ? { placeForPosts: placeForPosts.bind(inner) } : {}),
  };
}
