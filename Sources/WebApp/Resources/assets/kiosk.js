// The kiosk follows the box: each `screen` event from /kiosk/events replaces the headline
// and lines. Text only (textContent), never markup. Without script the page is still the
// box's screen at the time it was loaded.
"use strict";
(function () {
  const main = document.querySelector("main");
  if (!main || !window.EventSource) return;
  function show(view) {
    document.body.className = "kiosk " + String(view.kind || "");
    const parts = [];
    for (const line of Array.isArray(view.above) ? view.above : []) {
      const p = document.createElement("p");
      p.className = "above";
      p.textContent = String(line);
      parts.push(p);
    }
    const heading = document.createElement("h1");
    heading.textContent = String(view.headline || "");
    parts.push(heading);
    for (const line of Array.isArray(view.lines) ? view.lines : []) {
      const p = document.createElement("p");
      p.textContent = String(line);
      parts.push(p);
    }
    main.replaceChildren(...parts);
  }
  const events = new EventSource("/kiosk/events");
  events.addEventListener("screen", function (e) {
    try { show(JSON.parse(e.data)); } catch (_) { /* a line this page cannot read: keep the last screen */ }
    document.body.dataset.live = "1";  // following the box (the browser tests wait for it)
  });
  // A parent setting up the box from a phone: the code is fetched, not sent in the stream,
  // and only the box's own screen gets it (the web app answers 404 to anyone else).
  const setup = document.getElementById("setup");
  events.addEventListener("setup", function (e) {
    let waiting = false;
    try { waiting = JSON.parse(e.data).waiting === true; } catch (_) { /* keep it hidden */ }
    if (!setup) return;
    if (!waiting) { setup.hidden = true; return; }
    fetch("/kiosk/setup-code", { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c || typeof c.code !== "string") return;
        const strong = document.createElement("strong");
        strong.textContent = c.code;
        setup.replaceChildren("Set-up code ", strong);
        setup.hidden = false;
      })
      .catch(function () { /* not on the box, or the web app restarting */ });
  });
})();
