// The help page: the chat opens in a popup window (window.open); the popup says when it was opened.
"use strict";

document.getElementById("open-chat").addEventListener("click", function () {
  var chat = window.open("/account/chat.html", "support-chat", "popup,width=420,height=560");
  document.getElementById("help-status").textContent = chat ? "The chat opened in a new window" : "Popups are blocked";
});
