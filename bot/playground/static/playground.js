// BenefitsBot playground: presets and example questions fill the form; asking posts it and swaps in
// the server-rendered (escaped) result. Without this script the form posts and the page reloads.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("ask-form");
  const result = document.getElementById("result");
  if (!form || !result) return;
  const question = document.getElementById("question");
  const button = document.getElementById("ask-button");

  for (const chip of document.querySelectorAll(".chip.example")) {
    chip.addEventListener("click", () => {
      question.value = chip.dataset.question;
      question.focus();
    });
  }
  for (const chip of document.querySelectorAll(".chip.preset")) {
    chip.addEventListener("click", () => {
      const groups = new Set(chip.dataset.groups ? chip.dataset.groups.split(",") : []);
      for (const box of form.querySelectorAll("input[name=groups]")) box.checked = groups.has(box.value);
      for (const other of document.querySelectorAll(".chip.preset")) other.classList.toggle("active", other === chip);
    });
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    button.textContent = "Asking…";
    result.setAttribute("aria-busy", "true");
    result.classList.add("busy");
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: {"X-Playground-Fragment": "1"},
        credentials: "same-origin",
      });
      const html = await response.text();
      // The server escaped every piece of text in this fragment; it is inserted as rendered.
      result.innerHTML = response.ok ? html : `<div class="verdict bad">HTTP ${response.status}</div>`;
    } catch (error) {
      result.textContent = "The playground could not reach the server: " + error;
    } finally {
      button.disabled = false;
      button.textContent = "Ask";
      result.removeAttribute("aria-busy");
      result.classList.remove("busy");
    }
  });
});
