// The set-up page waits for the press on the box: it asks every second whether the claim
// moved on and then reloads. Without script, "I pressed it" does the same by hand.
"use strict";
(function () {
  if (document.body.dataset.phase !== "waiting" || !window.fetch) return;
  const timer = setInterval(function () {
    fetch("/parent/setup/state", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (s && s.phase !== "waiting") { clearInterval(timer); window.location.reload(); }
      })
      .catch(function () { /* the web app restarting: keep asking */ });
  }, 1000);
})();
