// The kiosk follows the box: each `screen` event from /kiosk/events replaces what the page
// shows. Text only (textContent), never markup. Without script the page is still the box's
// screen at the time it was loaded. Every screen is fitted to its glass (#33): the lines that
// may give way go first, then the type shrinks, never below 20 px.
"use strict";
(function () {
  const main = document.querySelector("main");
  if (!main) return;
  const smallest = 20;  // px: readable from 1.5 m on the Pi's 7" display

  function fits() {
    return main.scrollHeight <= main.clientHeight + 1 && main.scrollWidth <= main.clientWidth + 1;
  }

  function fit() {
    const body = document.body;
    body.style.setProperty("--fit", "1");
    for (const p of main.querySelectorAll(".more")) p.hidden = false;
    const more = Array.from(main.querySelectorAll(".more"));
    while (!fits() && more.length > 0) more.pop().hidden = true;
    // The smallest line's size at scale 1, so the scale never takes it below `smallest`.
    let least = Infinity;
    for (const el of main.querySelectorAll("p, li")) {
      if (el.hidden) continue;
      least = Math.min(least, parseFloat(getComputedStyle(el).fontSize) || Infinity);
    }
    const floor = Number.isFinite(least) ? Math.min(1, smallest / least) : 1;
    let scale = 1;
    while (!fits() && scale > floor) {
      scale = Math.max(floor, scale - 0.05);
      body.style.setProperty("--fit", String(scale));
    }
    body.dataset.fitted = fits() ? "1" : "0";
  }

  function add(parts, tag, text, className) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    el.textContent = String(text);
    parts.push(el);
    return el;
  }

  function show(view) {
    document.body.className = "kiosk " + String(view.kind || "");
    if (typeof view.rating === "string") document.body.dataset.rating = view.rating;
    else delete document.body.dataset.rating;
    const parts = [];
    for (const line of Array.isArray(view.above) ? view.above : []) add(parts, "p", line, "above");
    add(parts, "h1", view.headline || "");
    if (Array.isArray(view.quests) && view.quests.length > 0) {
      const list = document.createElement("ul");
      list.className = "quest-list";
      for (const q of view.quests) {
        const li = document.createElement("li");
        li.className = [q.selected ? "selected" : "", q.played ? "played" : "", q.reminded ? "reminded" : ""].join(" ").trim();
        li.textContent = String(q.name || "") + (q.played ? " ✓" : "");
        if (q.badge) {
          const badge = document.createElement("span");
          badge.className = "badge";
          badge.textContent = String(q.badge);
          li.append(" ", badge);
        }
        list.append(li);
      }
      parts.push(list);
    }
    for (const line of Array.isArray(view.lines) ? view.lines : []) add(parts, "p", line);
    for (const line of Array.isArray(view.more) ? view.more : []) add(parts, "p", line, "more");
    if (view.hint) add(parts, "p", view.hint, "hint");
    main.replaceChildren(...parts);
    fit();
  }

  // #33: a paired kiosk's buttons press the box as its own do: down when the finger lands,
  // up when it lifts (so a 3 s hold works), a tap from the keyboard. The box debounces and
  // guards them; a press it refuses changes nothing here. Presses go one after another: two
  // requests at once may arrive the other way round, and an "up" before its "down" would
  // leave the button held on the box.
  const touch = document.querySelector("nav.touch");
  if (touch && document.body.dataset.touch === "1") {
    const csrf = touch.dataset.csrf || "";
    let sending = Promise.resolve();
    const send = function (button, action) {
      const body = new URLSearchParams({ csrf: csrf, button: button, action: action });
      sending = sending.then(function () {
        return fetch("/kiosk/press", { method: "POST", body: body, credentials: "same-origin", cache: "no-store", signal: AbortSignal.timeout(5000) })
          .then(function (r) { if (r.status === 403) location.reload(); })  // unpaired (or a stale page)
          .catch(function () { /* the web app restarting: the next press tries again */ });
      });
    };
    for (const b of touch.querySelectorAll("button[data-button]")) {
      const role = b.dataset.button;
      let down = false;
      const lift = function () {
        if (!down) return;
        down = false;
        b.classList.remove("held");
        send(role, "up");
      };
      b.addEventListener("pointerdown", function (e) {
        e.preventDefault();
        if (down) return;
        down = true;
        b.classList.add("held");
        try { b.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer */ }
        send(role, "down");
      });
      b.addEventListener("pointerup", lift);
      b.addEventListener("pointercancel", lift);
      b.addEventListener("lostpointercapture", lift);
      b.addEventListener("contextmenu", function (e) { e.preventDefault(); });  // a long press is a hold
      b.addEventListener("click", function (e) { if (e.detail === 0) send(role, "tap"); });  // Enter or Space
    }
  }

  // While this browser's pairing code shows, it asks every 2 s whether a parent entered it.
  if (document.getElementById("pair-code")) {
    const poll = setInterval(function () {
      fetch("/kiosk/pairing", { cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (p) {
          if (!p) return;
          if (p.paired === true || typeof p.code !== "string") { clearInterval(poll); location.reload(); }
        })
        .catch(function () { /* try again in 2 s */ });
    }, 2000);
  }

  fit();
  window.addEventListener("resize", fit);
  // A parent's preview shows one screen and follows nothing.
  if (document.body.dataset.preview === "1" || !window.EventSource) return;
  const events = new EventSource("/kiosk/events");
  // A code fetched for the box's own glass into `el` ("Label <strong>code</strong>").
  function showCode(el, url, label) {
    fetch(url, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c || typeof c.code !== "string") return;
        const strong = document.createElement("strong");
        strong.textContent = c.code;
        el.replaceChildren(label + " ", strong);
        el.hidden = false;
        fit();
      })
      .catch(function () { /* not on the box, or the web app restarting */ });
  }
  // PRIV-1: a phone's code is never in the stream; the box's own glass (a kiosk paired to
  // press) fetches it while the box gives one, and no other page asks.
  const phoneCode = document.getElementById("phone-code");
  function followPhoneCode(kind) {
    if (!phoneCode || document.body.dataset.touch !== "1") return;
    if (kind !== "pairing") { if (!phoneCode.hidden) { phoneCode.hidden = true; fit(); } return; }
    showCode(phoneCode, "/kiosk/pairing-code", "Phone's code");
  }
  events.addEventListener("screen", function (e) {
    let view = null;
    try { view = JSON.parse(e.data); show(view); } catch (_) { /* a line this page cannot read: keep the last screen */ }
    if (view) followPhoneCode(view.kind);
    document.body.dataset.live = "1";  // following the box (the browser tests wait for it)
  });
  // A parent setting up the box from a phone: the code is fetched, not sent in the stream,
  // and only the box's own glass gets it: a kiosk paired to press its buttons (#47; the web
  // app answers 404 to any other, so no other page asks).
  const setup = document.getElementById("setup");
  events.addEventListener("setup", function (e) {
    let waiting = false;
    try { waiting = JSON.parse(e.data).waiting === true; } catch (_) { /* keep it hidden */ }
    if (!setup || document.body.dataset.touch !== "1") return;
    if (!waiting) { setup.hidden = true; fit(); return; }
    showCode(setup, "/kiosk/setup-code", "Set-up code");
  });
})();
