// A chat room: asks the server for new messages every 200 ms, so each side sees what the other sends.
// Messages appear only from the poll (one's own too), so both sides show them in the server's order.
"use strict";

(function () {
  if (!Chat.requireSignIn()) return;
  var POLL_MS = 200;
  var room = new URLSearchParams(window.location.search).get("room") || "";
  var list = document.getElementById("messages");
  var presence = document.getElementById("presence");
  var error = document.getElementById("room-error");
  var form = document.getElementById("send-form");
  var input = document.getElementById("message");
  var shown = {};
  var lastId = 0;
  var stopped = false;

  function show(message) {
    if (shown[message.id]) return;
    shown[message.id] = true;
    var item = document.createElement("li");
    item.textContent = message.author + ": " + message.text;
    if (message.author === Chat.name()) item.className = "mine";
    list.appendChild(item);
  }

  function showPresence(members) {
    var me = Chat.name();
    var others = members.slice();
    var mine = others.indexOf(me);
    if (mine >= 0) others.splice(mine, 1);
    presence.textContent = members.length < 2
      ? "Waiting for someone to join with your invitation code"
      : "Chatting with " + (others.length ? others[0] : me);
  }

  function poll() {
    if (stopped) return;
    Chat.api("GET", "/api/rooms/" + encodeURIComponent(room) + "?after=" + lastId).then(function (answer) {
      if (!answer.ok) {
        presence.textContent = answer.data.error;
        stopped = true;
        return;
      }
      showPresence(answer.data.members);
      answer.data.messages.forEach(function (message) {
        show(message);
        lastId = Math.max(lastId, message.id);
      });
    }, function () { /* the server is briefly away: try again */ })
      .then(function () { if (!stopped) window.setTimeout(poll, POLL_MS); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    error.textContent = "";
    Chat.api("POST", "/api/rooms/" + encodeURIComponent(room) + "/messages", {text: input.value})
      .then(function (answer) {
        if (!answer.ok) {
          error.textContent = answer.data.error;
          return;
        }
        input.value = "";  // the next poll shows it, in the order the server keeps
        input.focus();
      });
  });

  window.addEventListener("pagehide", function () { stopped = true; });
  poll();
})();
