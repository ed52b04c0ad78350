// The wiring page follows the box's buttons: each `press` event from /parent/wiring/events
// lights its tile while pressed and counts it; `check` says whether the box is listening.
// Text only (textContent), never markup.
"use strict";
(function () {
  const status = document.getElementById("wiring-status");
  if (!status || !window.EventSource) return;
  const counts = {};
  const events = new EventSource("/parent/wiring/events");
  events.addEventListener("check", function (e) {
    let check = {};
    try { check = JSON.parse(e.data); } catch (_) { return; }
    document.body.dataset.listening = check.listening === true ? "1" : "0";  // the browser tests wait for it
    status.textContent = check.listening === true
      ? "Listening: press each button on the box. While this page is open, presses start no quest."
      : "Not listening: " + String(check.reason || "the box is offline") + " (trying again in a few seconds)";
  });
  events.addEventListener("press", function (e) {
    let press = {};
    try { press = JSON.parse(e.data); } catch (_) { return; }
    const tile = document.querySelector('li[data-button="' + CSS.escape(String(press.button || "")) + '"]');
    if (!tile) return;
    tile.classList.toggle("pressed", press.pressed === true);
    if (press.pressed !== true) return;
    counts[press.button] = (counts[press.button] || 0) + 1;
    tile.classList.add("seen");
    const state = tile.querySelector(".button-state");
    if (state) state.textContent = "works ✓ (" + counts[press.button] + (counts[press.button] === 1 ? " press)" : " presses)");
  });
})();
