// The support chat popup: each message sent is listed with the agent's answer.
"use strict";

document.getElementById("chat-form").addEventListener("submit", function (event) {
  event.preventDefault();
  var input = document.getElementById("chat-message");
  var text = input.value.trim();
  if (!text) return;
  var log = document.getElementById("chat-log");
  [["You", text], ["Agent", "Thanks, we will answer within a day."]].forEach(function (line) {
    var item = document.createElement("li");
    item.textContent = line[0] + ": " + line[1];
    log.appendChild(item);
  });
  input.value = "";
});
