/* Game scoring page: per-player photo, read-card overlay, corrections, live flags.
 *
 * Every hand saves on its own (POST .../hands/<seat>), so several phones can
 * work at once; the page polls the game's state to show the others' hands.
 */
(function () {
  "use strict";
  const root = document.getElementById("game");
  if (!root) return;
  const LOW = parseFloat(root.dataset.low || "0.6");
  const issuesBox = document.getElementById("issues");
  const sections = new Map();
  let issues = JSON.parse(issuesBox.dataset.state || "{}").issues || { errors: [], warnings: [], by_seat: {} };

  function pct(c) { return Math.round(c * 100) + "%"; }

  function renderIssues() {
    issuesBox.textContent = "";
    if (issues.errors && issues.errors.length) {
      const box = document.createElement("div"); box.className = "errors"; box.setAttribute("role", "alert");
      const p = document.createElement("p"); p.textContent = "Fix before scoring:"; box.appendChild(p);
      const ul = document.createElement("ul");
      issues.errors.forEach((e) => { const li = document.createElement("li"); li.textContent = e; ul.appendChild(li); });
      box.appendChild(ul); issuesBox.appendChild(box);
    }
    if (issues.warnings && issues.warnings.length) {
      const box = document.createElement("div"); box.className = "warnings-box";
      const ul = document.createElement("ul");
      issues.warnings.forEach((e) => { const li = document.createElement("li"); li.textContent = e; ul.appendChild(li); });
      box.appendChild(ul); issuesBox.appendChild(box);
    }
  }

  function HandEditor(sec) {
    const self = this;
    this.sec = sec;
    this.seat = sec.dataset.seat;
    this.state = JSON.parse(sec.dataset.hand);
    this.localUrl = null;
    this.selected = null;
    this.busy = false;
    // Kept until a request succeeds: a repeat of the same save or photo is done once.
    this.saveKey = Rummy.newKey();
    this.photoKey = Rummy.newKey();
    const q = (s) => sec.querySelector(s);
    this.el = {
      chips: q(".chips"), editbar: q(".editbar"), selLabel: q(".sel-label"), text: q(".cards-text"),
      dropped: q(".dropped"), form: q(".hand-form"), error: q(".form-error"), figure: q("figure.photo"),
      img: q("figure.photo img"), svg: q("svg.overlay"), warnings: q("ul.warnings"), status: q(".photo-form .status"),
      preview: q(".preview"), camera: q(".camera"), video: q(".camera video"), live: q(".live-btn"),
    };
    q(".remove-btn").addEventListener("click", () => self.removeSelected());
    q(".deselect-btn").addEventListener("click", () => { self.selected = null; self.render(); });
    sec.querySelectorAll(".picker .pick").forEach((b) => b.addEventListener("click", () => self.pick(b.dataset.code)));
    this.el.form.addEventListener("submit", (ev) => { ev.preventDefault(); self.saveText(); });
    this.el.dropped.addEventListener("change", () => self.save({ dropped: self.el.dropped.checked }));
    sec.querySelectorAll(".photo-input").forEach((inp) => inp.addEventListener("change", () => {
      if (inp.files.length) self.upload(inp.files[0]);
      inp.value = "";
    }));
    if (this.el.live && navigator.mediaDevices && navigator.mediaDevices.getUserMedia && window.isSecureContext) {
      this.el.live.hidden = false;
      this.el.live.addEventListener("click", () => self.startCamera());
      q(".capture-btn").addEventListener("click", () => self.capture());
      q(".stop-btn").addEventListener("click", () => self.stopCamera());
    }
    this.el.img.addEventListener("load", () => self.renderOverlay());
    this.el.img.addEventListener("error", () => self.photoNotShown());
    this.render();
  }

  // A browser that cannot show the chosen file (a HEIC outside Safari) falls
  // back to the kept copy, which the server stores as a JPEG; with none, the
  // photo is left out and the cards read are still listed.
  HandEditor.prototype.photoNotShown = function () {
    if (this.localUrl && this.el.img.getAttribute("src") === this.localUrl) {
      URL.revokeObjectURL(this.localUrl);
      this.localUrl = null;
      if (!this.state.photo_url) {
        this.unshowable = true;
        this.el.status.textContent += " This browser cannot show this photo’s format (HEIC), so it is not shown; the cards were read all the same.";
      }
    } else {
      this.unshowable = true;
    }
    this.render();
  };

  HandEditor.prototype.flags = function () {
    const f = (issues.by_seat || {})[this.seat] || { dup: [], not_in_play: [] };
    return new Set([].concat(f.dup || [], f.not_in_play || []));
  };

  HandEditor.prototype.readCard = function (i) {
    const st = this.state, link = (st.links || [])[i];
    if (link === null || link === undefined || !st.reading) return null;
    return st.reading.cards[link] || null;
  };

  HandEditor.prototype.render = function () {
    const st = this.state, el = this.el, flags = this.flags();
    this.sec.classList.toggle("dropped", !!st.dropped);
    el.chips.textContent = "";
    st.cards.forEach((code, i) => {
      const b = document.createElement("button");
      b.type = "button"; b.className = "chip";
      b.setAttribute("aria-pressed", String(this.selected === i));
      const c = Rummy.cardEl(code);
      const read = this.readCard(i);
      if (read) {
        if (read.code !== code) c.classList.add("fixed");
        else if (read.confidence < LOW) c.classList.add("low");
        const conf = document.createElement("span"); conf.className = "conf";
        conf.textContent = read.code !== code ? "fixed" : pct(read.confidence);
        c.appendChild(conf);
      }
      if (flags.has(code)) c.classList.add("flagged");
      b.setAttribute("aria-label", Rummy.label(code) + (read ? ", read with " + pct(read.confidence) + " confidence" : "") + ". Select to change or remove.");
      b.appendChild(c);
      b.addEventListener("click", () => { this.selected = this.selected === i ? null : i; this.render(); });
      el.chips.appendChild(b);
    });
    if (document.activeElement !== el.text) el.text.value = st.cards.join(" ");
    el.dropped.checked = !!st.dropped;
    el.editbar.hidden = this.selected === null;
    if (this.selected !== null) el.selLabel.textContent = "Selected: " + Rummy.label(st.cards[this.selected]);
    el.warnings.textContent = "";
    ((st.reading && st.reading.warnings) || []).forEach((w) => {
      const li = document.createElement("li"); li.textContent = w; el.warnings.appendChild(li);
    });
    const src = this.localUrl || st.photo_url;
    if (st.reading && src && !this.unshowable) {
      el.figure.hidden = false;
      if (el.img.getAttribute("src") !== src) el.img.src = src; else this.renderOverlay();
    } else {
      el.figure.hidden = true;
    }
    const sc = st.score;
    if (st.dropped) el.preview.textContent = st.name + " dropped out: not counted.";
    else if (sc && sc.error) el.preview.textContent = sc.error;
    else if (sc) el.preview.textContent = "Best melds leave a count of " + sc.count + (sc.can_go_out ? " (can go out)." : ".");
    else el.preview.textContent = "";
  };

  HandEditor.prototype.renderOverlay = function () {
    const st = this.state, svg = this.el.svg, NS = "http://www.w3.org/2000/svg";
    svg.textContent = "";
    if (!st.reading) return;
    svg.setAttribute("viewBox", "0 0 " + st.reading.width + " " + st.reading.height);
    svg.setAttribute("preserveAspectRatio", "none");
    // ~13 CSS px whatever the photo's resolution and the screen's width
    const shown = this.el.img.clientWidth || st.reading.width;
    const W = st.reading.width, H = st.reading.height;
    const fontSize = Math.max(8, Math.round(13 * W / shown));
    const lineH = Math.round(fontSize * 1.2);
    // Labels are placed one by one where they overlap no earlier label: above
    // the box, below it, inside its top, then stacked further up or down.
    const placed = [];
    const clash = (a) => placed.some((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y - a.h < b.y && b.y - b.h < a.y);
    const items = [];
    st.reading.cards.forEach((rc, j) => {
      const i = (st.links || []).indexOf(j);
      const cur = i >= 0 ? st.cards[i] : null;
      const [x1, y1, x2, y2] = rc.box;
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", x1); r.setAttribute("y", y1);
      r.setAttribute("width", Math.max(1, x2 - x1)); r.setAttribute("height", Math.max(1, y2 - y1));
      let cls = "", text;
      if (cur === null) { cls = "removed"; text = rc.code + " removed"; }
      else if (cur !== rc.code) { cls = "fixed"; text = cur + " (read " + rc.code + ")"; }
      else { cls = rc.confidence < LOW ? "low" : ""; text = rc.code + " " + pct(rc.confidence); }
      if (cls) r.setAttribute("class", cls);
      const t = document.createElementNS(NS, "text");
      t.setAttribute("font-size", fontSize);
      t.setAttribute("stroke-width", Math.max(2, fontSize / 5));
      if (cls) t.setAttribute("class", cls);
      t.textContent = text;
      svg.append(r, t);
      items.push({ t, x1, y1, x2, y2 });
    });
    items.forEach(({ t, x1, y1, x2, y2 }) => {
      let w = 0;
      try { w = t.getComputedTextLength(); } catch (e) { /* not rendered */ }
      if (!w) w = 0.62 * fontSize * t.textContent.length;
      const x = Math.max(0, Math.min(x1 + 2, W - w - 2));
      const cands = [y1 - 4, y2 + lineH, y1 + lineH];
      for (let k = 1; k <= 8; k++) cands.push(y1 - 4 - k * lineH, y2 + lineH * (k + 1));
      const fits = (y) => y - fontSize >= 0 && y <= H;
      let y = cands.find((c) => fits(c) && !clash({ x, y: c, w, h: lineH }));
      if (y === undefined) y = Math.min(H, Math.max(fontSize, y1 - 4));
      placed.push({ x, y, w, h: lineH });
      t.setAttribute("x", x); t.setAttribute("y", y);
    });
  };

  HandEditor.prototype.pick = function (code) {
    const st = this.state;
    const cards = st.cards.slice(), links = (st.links || []).slice();
    if (this.selected !== null) { cards[this.selected] = code; }
    else { cards.push(code); links.push(null); }
    this.selected = null;
    this.save({ cards, links });
  };

  HandEditor.prototype.removeSelected = function () {
    if (this.selected === null) return;
    const cards = this.state.cards.slice(), links = (this.state.links || []).slice();
    cards.splice(this.selected, 1); links.splice(this.selected, 1);
    this.selected = null;
    this.save({ cards, links });
  };

  HandEditor.prototype.saveText = function () {
    this.selected = null;
    this.save({ cards: this.el.text.value, links: null });
  };

  HandEditor.prototype.save = async function (change) {
    const st = this.state;
    const body = { cards: st.cards, links: st.links, dropped: !!st.dropped };
    Object.assign(body, change);
    this.busy = true;
    this.el.error.textContent = "";
    try {
      const data = await Rummy.postJSON(this.sec.dataset.saveUrl, body, this.saveKey);
      this.saveKey = Rummy.newKey();
      applyState(data);
    } catch (e) {
      this.el.error.textContent = e.message;
      this.render();
    } finally { this.busy = false; }
  };

  HandEditor.prototype.upload = async function (file) {
    const fd = new FormData(); fd.append("photo", file, file.name || "photo.jpg");
    this.el.status.textContent = "Reading the cards…";
    this.busy = true;
    try {
      const data = await Rummy.postForm(this.sec.dataset.photoPost, fd, this.photoKey);
      this.photoKey = Rummy.newKey();
      if (this.localUrl) URL.revokeObjectURL(this.localUrl);
      this.localUrl = URL.createObjectURL(file);
      this.unshowable = false;
      const n = data.reading ? data.reading.cards.length : 0;
      this.el.status.textContent = n + " card" + (n === 1 ? "" : "s") + " read. Check them below.";
      this.selected = null;
      applyState(data);
    } catch (e) {
      this.el.status.textContent = e.message;
    } finally { this.busy = false; }
  };

  HandEditor.prototype.startCamera = async function () {
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 } }, audio: false });
      this.el.video.srcObject = this.stream;
      await this.el.video.play();
      this.el.camera.hidden = false;
    } catch (e) { this.el.status.textContent = "Camera not available: " + e.message; }
  };

  HandEditor.prototype.capture = function () {
    const v = this.el.video;
    if (!v.videoWidth) return;
    const c = document.createElement("canvas");
    c.width = v.videoWidth; c.height = v.videoHeight;
    c.getContext("2d").drawImage(v, 0, 0);
    c.toBlob((blob) => {
      if (!blob) return;
      this.stopCamera();
      this.upload(new File([blob], "camera.jpg", { type: "image/jpeg" }));
    }, "image/jpeg", 0.92);
  };

  HandEditor.prototype.stopCamera = function () {
    if (this.stream) this.stream.getTracks().forEach((t) => t.stop());
    this.stream = null; this.el.camera.hidden = true;
  };

  function applyState(data, onlyIdle) {
    if (!data) return;
    if (data.issues) issues = data.issues;
    (data.hands || []).forEach((h) => {
      const ed = sections.get(String(h.seat));
      if (!ed) return;
      if (onlyIdle && (ed.busy || ed.selected !== null || document.activeElement === ed.el.text)) return;
      const changed = ed.state.updated_at !== h.updated_at;
      if (changed && onlyIdle && ed.localUrl && h.reading !== ed.state.reading) { /* new photo from another phone */
        URL.revokeObjectURL(ed.localUrl); ed.localUrl = null;
      }
      ed.state = h;
    });
    sections.forEach((ed) => ed.render());
    renderIssues();
  }

  root.querySelectorAll("section.hand").forEach((sec) => sections.set(sec.dataset.seat, new HandEditor(sec)));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => sections.forEach((ed) => ed.renderOverlay()), 150);
  });
  renderIssues();

  // Other phones may be saving their hands: refresh every few seconds.
  const stateUrl = root.dataset.stateUrl;
  setInterval(async function () {
    if (document.hidden) return;
    try {
      const resp = await fetch(stateUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (resp.ok) applyState(await resp.json(), true);
    } catch (e) { /* offline for a moment: try again next tick */ }
  }, 5000);
})();
