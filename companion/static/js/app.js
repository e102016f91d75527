/* Shared helpers (no inline scripts anywhere: CSP forbids them). */
(function () {
  "use strict";
  const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
  const SUIT_NAMES = { S: "spades", C: "clubs", D: "diamonds", H: "hearts" };
  const OPT = {
    COUNT1: ["COUNT", "1"], COUNT2: ["COUNT", "2"], COUNT3: ["COUNT", "3"], COUNT4: ["COUNT", "4"],
    COUNT7: ["COUNT", "7"], COUNT12: ["COUNT", "12"], NOMELD0: ["NO MELD", "0"], NOMELD2: ["NO MELD", "2"],
    NODECLARE0: ["CAN'T DECLARE", "0"], WILD: ["WILDCARD", ""],
  };
  const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };

  function csrf() {
    const m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : "";
  }

  function label(code) {
    if (OPT[code]) return (OPT[code][0] + " " + OPT[code][1]).trim();
    const r = code.slice(0, -1), s = code.slice(-1);
    return (RANK_NAMES[r] || r) + " of " + (SUIT_NAMES[s] || s);
  }

  /* A card drawn like the server's _cards.html macro. */
  function cardEl(code) {
    const el = document.createElement("span");
    el.dataset.code = code;
    el.title = label(code);
    if (OPT[code]) {
      el.className = "card opt opt-" + code.replace(/[0-9]+$/, "").toLowerCase();
      const nm = document.createElement("span"); nm.className = "nm"; nm.textContent = OPT[code][0];
      el.appendChild(nm);
      if (OPT[code][1]) { const v = document.createElement("span"); v.className = "val"; v.textContent = OPT[code][1]; el.appendChild(v); }
    } else {
      const s = code.slice(-1);
      el.className = "card " + (s === "D" || s === "H" ? "red" : "black");
      const rk = document.createElement("span"); rk.className = "rk"; rk.textContent = code.slice(0, -1);
      const st = document.createElement("span"); st.className = "st"; st.textContent = SUITS[s] || s;
      el.append(rk, st);
    }
    return el;
  }

  /* A random idempotency key (crypto.getRandomValues works on plain http too,
     unlike randomUUID): the same key + the same content = the same request. */
  function newKey() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  async function postJSON(url, body, key) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf(), "X-Requested-With": "fetch",
                      "Accept": "application/json" };
    if (key) headers["Idempotency-Key"] = key;
    const resp = await fetch(url, { method: "POST", credentials: "same-origin", headers, body: JSON.stringify(body) });
    return readJSON(resp);
  }

  async function postForm(url, formData, key) {
    const headers = { "X-CSRF-Token": csrf(), "X-Requested-With": "fetch", "Accept": "application/json" };
    if (key) headers["Idempotency-Key"] = key;
    const resp = await fetch(url, { method: "POST", credentials: "same-origin", headers, body: formData });
    return readJSON(resp);
  }

  async function readJSON(resp) {
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) {
      const msg = (data && data.error) || ("The companion answered " + resp.status + ".");
      const err = new Error(msg); err.status = resp.status; throw err;
    }
    return data;
  }

  /* Forms with data-confirm ask first. */
  document.addEventListener("submit", function (ev) {
    const f = ev.target;
    if (f instanceof HTMLFormElement && f.dataset.confirm && !window.confirm(f.dataset.confirm)) ev.preventDefault();
  });

  window.Rummy = { cardEl, label, postJSON, postForm, csrf, newKey, SUITS };
})();
