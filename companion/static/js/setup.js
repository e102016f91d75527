/* New-table form: show 4 seats, reveal more on demand. */
(function () {
  "use strict";
  const more = document.getElementById("more-seats");
  if (!more) return;
  const extras = Array.from(document.querySelectorAll(".seat-row.extra"));
  if (!extras.length) return;
  extras.forEach((r) => r.classList.add("hide"));
  more.hidden = false;
  more.addEventListener("click", function () {
    const next = extras.find((r) => r.classList.contains("hide"));
    if (next) { next.classList.remove("hide"); next.querySelector("input[type=text]").focus(); }
    if (!extras.some((r) => r.classList.contains("hide"))) more.hidden = true;
  });
})();
