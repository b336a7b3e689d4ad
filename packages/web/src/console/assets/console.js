// The console's only script: keeps the live region fresh from server-sent events and sends chat
// messages without reloading the page. Every page also works without it (plain links and forms).

const FRAGMENT_HEADER = "x-console-fragment";

function main() {
  const live = document.getElementById("live");
  const state = document.getElementById("live-state");
  if (!live) return;
  const topics = new Set((live.dataset.topics || "").split(" ").filter(Boolean));
  const pageKey = live.dataset.key || "";
  let refreshing = false;
  let again = false;

  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const response = await fetch(location.href, { headers: { [FRAGMENT_HEADER]: "1" } });
      if (response.ok) {
        const focused = document.activeElement && live.contains(document.activeElement);
        live.innerHTML = await response.text();
        if (focused) live.focus();
        // In the chat, follow the conversation: the newest message stays in view.
        if (document.querySelector("form[data-chat-form]")) {
          const newest = live.querySelector(".transcript > li:last-child");
          if (newest) newest.scrollIntoView({ block: "nearest" });
        }
        live.dataset.refreshedAt = String(Date.now());
      }
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  }

  // A busy process sends many notices: refresh at most once a second, and once more after a burst.
  let lastRefresh = 0;
  let pending;
  function schedule() {
    if (pending) return;
    pending = setTimeout(
      () => {
        pending = undefined;
        lastRefresh = Date.now();
        void refresh();
      },
      Math.max(0, lastRefresh + 1000 - Date.now()),
    );
  }

  const events = new EventSource("/console/events");
  events.addEventListener("ready", () => {
    if (state) state.textContent = "live";
  });
  events.addEventListener("error", () => {
    if (state) state.textContent = "reconnecting…";
  });
  events.addEventListener("change", (message) => {
    const event = JSON.parse(message.data);
    if (!topics.has(event.topic)) return;
    if (pageKey && event.topic === "conversations" && event.key && event.key !== pageKey) return;
    schedule();
  });

  const form = document.querySelector("form[data-chat-form]");
  if (form) {
    const text = form.querySelector("textarea");
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = new URLSearchParams(new FormData(form));
      const response = await fetch(form.action, {
        method: "POST",
        body,
        headers: { [FRAGMENT_HEADER]: "1" },
      });
      if (response.ok) {
        text.value = "";
        text.focus();
        void refresh();
      } else if (state) {
        state.textContent = await response.text();
      }
    });
  }
}

main();
