// The partner frame comes from the peer origin, which /peer-origin.js names (see server.py).
"use strict";

(function () {
  var frame = document.getElementById("partner-frame");
  var peer = window.SHOP_PEER_ORIGIN;
  if (peer) {
    frame.src = peer + "/account/partner-frame.html";
  } else {
    frame.hidden = true;
    document.getElementById("partner-missing").hidden = false;
  }
})();
