// The wiring page follows the box's buttons: each `press` event from /parent/wiring/events
// lights its tile while pressed and counts it; `check` says whether the box is listening.
// Text only (textContent), never markup.
"use strict";
(function () {
  const status = document.getElementById("wiring-status");
  if (!status || !window.EventSource) return;
  // Kept for this tab, so trying an output (a form that loads the page again) keeps the
  // buttons already seen working.
  let counts = {};
  try { counts = JSON.parse(sessionStorage.getItem("wiring-counts") || "{}") || {}; } catch (_) { counts = {}; }
  function showCount(tile, button) {
    const n = Number(counts[button]) || 0;
    if (n < 1) return;
    tile.classList.add("seen");
    const state = tile.querySelector(".button-state");
    if (state) state.textContent = "works ✓ (" + n + (n === 1 ? " press)" : " presses)");
  }
  for (const tile of document.querySelectorAll("li[data-button]")) showCount(tile, tile.dataset.button);
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
    counts[press.button] = (Number(counts[press.button]) || 0) + 1;
    try { sessionStorage.setItem("wiring-counts", JSON.stringify(counts)); } catch (_) { /* private mode: this load only */ }
    showCount(tile, press.button);
  });
})();
