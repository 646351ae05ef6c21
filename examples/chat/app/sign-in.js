// Sign in with any name; the server hands this tab a token and the lobby opens.
"use strict";

(function () {
  var form = document.getElementById("sign-in-form");
  var input = document.getElementById("name");
  var error = document.getElementById("sign-in-error");

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    Chat.api("POST", "/api/sign-in", {name: input.value}).then(function (answer) {
      if (!answer.ok) {
        error.textContent = answer.data.error;
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      Chat.signIn(answer.data);
      window.location.assign("/lobby.html");
    });
  });
})();
