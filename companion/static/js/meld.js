/* Meld checker: clicking a card in the picker appends it to the text field. */
(function () {
  "use strict";
  const input = document.getElementById("meld-cards");
  if (!input) return;
  document.querySelectorAll("#meld-picker .pick").forEach(function (btn) {
    btn.addEventListener("click", function () {
      const v = input.value.trim();
      input.value = (v ? v + " " : "") + btn.dataset.code;
    });
  });
  const clear = document.getElementById("meld-clear");
  if (clear) clear.addEventListener("click", function () { input.value = ""; input.focus(); });
})();
