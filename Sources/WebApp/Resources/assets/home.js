// The player's home follows the box (#33): while a quest is under way it says so (the quest's
// name only: nothing about time, GAME-2), and when one ends the page's XP, level, streak and
// ticks are read again, without a reload; a paused quest's line goes when it is picked up.
// It shares the kiosk's event stream.
"use strict";
(function () {
  const live = document.getElementById("live");
  const main = document.querySelector("main");
  if (!live || !main || !window.EventSource) return;
  let last = null;
  function inQuest(kind) {
    return kind === "estimating" || kind === "active" || kind === "revealing" || kind === "reveal";
  }
  function refresh() {
    fetch("/", { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        const fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        if (!fresh) return;
        for (const id of ["progress-section", "quests-section"]) {
          const now = document.getElementById(id), next = fresh.querySelector("#" + id);
          if (now && next) now.replaceWith(document.importNode(next, true));
        }
        document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
      })
      .catch(function () { /* the web app restarting: the next event tries again */ });
  }
  const events = new EventSource("/kiosk/events");
  events.addEventListener("screen", function (e) {
    let view = null;
    try { view = JSON.parse(e.data); } catch (_) { return; }
    const kind = String(view.kind || "");
    const quest = Array.isArray(view.above) && view.above.length > 0 ? String(view.above[0]) : "";
    if (inQuest(kind)) {
      live.textContent = "On the box now: " + quest;
      live.hidden = false;
      // #48: the quest in play is not paused, whatever the page said before it was picked up
      // (a fetch now could come before the box has stored the pick-up).
      for (const item of document.querySelectorAll("#quests-section li")) {
        const line = item.dataset.quest === quest ? item.querySelector(".paused") : null;
        if (line) line.remove();
      }
    } else if (kind === "summary") {
      live.textContent = "Quest done on the box!";
      live.hidden = false;
      refresh();
    } else {
      live.hidden = true;
      if (last !== null && last !== kind) refresh();
    }
    last = kind;
    document.body.dataset.live = "1";
  });
})();
