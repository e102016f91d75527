/* First-dealer page: a photo fills the player's card field via /api/detect. */
(function () {
  "use strict";
  const status = document.querySelector("#prelim-form .status");
  document.querySelectorAll(".detect-input").forEach(function (input) {
    input.addEventListener("change", async function () {
      if (!input.files.length) return;
      const target = document.querySelector('input[name="' + input.dataset.target + '"]');
      const fd = new FormData(); fd.append("photo", input.files[0]);
      status.textContent = "Reading the photo…";
      try {
        const data = await Rummy.postForm("/api/detect", fd);
        target.value = data.cards.map((c) => c.card).join(" ");
        status.textContent = data.cards.length + " card(s) read." + (data.warnings.length ? " " + data.warnings.join(" ") : "");
      } catch (e) { status.textContent = e.message; }
      input.value = "";
    });
  });
})();
