// Sign-in page: any email containing "@" with the password "secret123" signs in.
"use strict";

(function () {
  var form = document.getElementById("login-form");
  var email = document.getElementById("email");
  var password = document.getElementById("password");
  var error = document.getElementById("login-error");

  function showError(message) {
    error.textContent = message;
    [email, password].forEach(function (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "login-error");
    });
  }

  function clearError() {
    error.textContent = "";
    [email, password].forEach(function (input) {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearError();
    var address = email.value.trim();
    if (!Shop.checkCredentials(address, password.value)) {
      showError("Invalid email or password");
      password.value = "";
      password.focus();
      return;
    }
    Shop.signIn(address);
    window.location.assign("/products.html");
  });
})();
