// The set-up page waits for the act at the box: it asks every second whether the claim
// moved on (queued → the box asks → allowed or over) and then reloads. Without script,
// "I held them" does the same by hand.
"use strict";
(function () {
  const phase = document.body.dataset.phase;
  if ((phase !== "waiting" && phase !== "queued") || !window.fetch) return;
  const timer = setInterval(function () {
    fetch("/parent/setup/state", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (s && s.phase !== phase) { clearInterval(timer); window.location.reload(); }
      })
      .catch(function () { /* the web app restarting: keep asking */ });
  }, 1000);
})();
