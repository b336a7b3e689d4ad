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
        const html = await response.text();
        const focused = document.activeElement && live.contains(document.activeElement);
        const edits = unsavedFields(live);
        live.innerHTML = html;
        if (focused) live.focus();
        restoreFields(live, edits);
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

  const pollSeconds = Number(live.dataset.poll || 0);
  if (pollSeconds > 0) setInterval(schedule, pollSeconds * 1000);

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
      // Files go as the form sends them (multipart); a text-only message as a plain form post.
      const data = new FormData(form);
      const files = form.querySelector("input[type=file]");
      const body = form.enctype === "multipart/form-data" ? data : new URLSearchParams(data);
      const response = await fetch(form.action, {
        method: "POST",
        body,
        headers: { [FRAGMENT_HEADER]: "1" },
      });
      if (response.ok) {
        text.value = "";
        if (files) files.value = "";
        text.focus();
        void refresh();
      } else if (state) {
        state.textContent = await response.text();
      }
    });
  }
}

/** Names a form field so the same field is found again in the refreshed region. */
function fieldSelector(field) {
  const form = field.form?.classList[0] ? `form.${CSS.escape(field.form.classList[0])} ` : "";
  const value =
    field.type === "checkbox" || field.type === "radio" ? `[value="${CSS.escape(field.value)}"]` : "";
  return `${form}[name="${CSS.escape(field.name)}"]${value}`;
}

/**
 * What the person has typed or chosen in the live region's forms (a search being typed, a filter
 * picked) and which field they are in: a refresh must not undo it.
 */
function unsavedFields(root) {
  const saved = [];
  for (const field of root.querySelectorAll("input[name], select[name], textarea[name]")) {
    if (field.type === "hidden") continue;
    const checkable = field.type === "checkbox" || field.type === "radio";
    const changed = checkable
      ? field.checked !== field.defaultChecked
      : field instanceof HTMLSelectElement
        ? [...field.options].some((option) => option.selected !== option.defaultSelected)
        : field.value !== field.defaultValue;
    const focused = field === document.activeElement;
    if (changed || focused)
      saved.push({ selector: fieldSelector(field), value: field.value, checked: field.checked, focused });
  }
  return saved;
}

function restoreFields(root, saved) {
  for (const entry of saved) {
    const field = root.querySelector(entry.selector);
    if (!field) continue;
    if (field.type === "checkbox" || field.type === "radio") field.checked = entry.checked;
    else field.value = entry.value;
    if (entry.focused) field.focus();
  }
}

main();
