// The lobby: create an invitation (its code appears in #code, with a link to the new room), or join
// a room with the code someone else created.
"use strict";

(function () {
  if (!Chat.requireSignIn()) return;
  document.getElementById("greeting").textContent = "Hello, " + Chat.name();
  document.getElementById("sign-out").addEventListener("click", Chat.signOut);

  var create = document.getElementById("create");
  var inviteError = document.getElementById("invite-error");
  create.addEventListener("click", function () {
    inviteError.textContent = "";
    Chat.api("POST", "/api/invitations").then(function (answer) {
      if (!answer.ok) {
        inviteError.textContent = answer.data.error;
        return;
      }
      document.getElementById("code").textContent = answer.data.code;
      document.getElementById("open-room").href = "/room.html?room=" + encodeURIComponent(answer.data.room);
      document.getElementById("invitation").hidden = false;
    });
  });

  var form = document.getElementById("join-form");
  var input = document.getElementById("join-code");
  var joinError = document.getElementById("join-error");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    joinError.textContent = "";
    input.removeAttribute("aria-invalid");
    Chat.api("POST", "/api/join", {code: input.value}).then(function (answer) {
      if (!answer.ok) {
        joinError.textContent = answer.data.error;
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      window.location.assign("/room.html?room=" + encodeURIComponent(answer.data.room));
    });
  });
})();
