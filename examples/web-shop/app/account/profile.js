// The profile form and <star-rating>, a web component that keeps its buttons in an open shadow root.
"use strict";

(function () {
  var NAMES = ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"];

  class StarRating extends HTMLElement {
    constructor() {
      super();
      this.value = 0;
      var root = this.attachShadow({ mode: "open" });
      var style = document.createElement("style");
      style.textContent =
        "button { font: inherit; border: 1px solid #d0d7de; background: #fff; border-radius: 4px;" +
        " padding: 0.25rem 0.5rem; cursor: pointer; } button[aria-pressed=true] { background: #ffd33d; }" +
        " .stars { display: flex; gap: 0.25rem; }";
      root.appendChild(style);
      var group = document.createElement("div");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", this.getAttribute("label") || "Rating");
      var caption = document.createElement("p");
      caption.textContent = this.getAttribute("label") || "Rating";
      caption.setAttribute("aria-hidden", "true");
      var stars = document.createElement("div");
      stars.className = "stars";
      NAMES.forEach(function (name, i) {
        var button = document.createElement("button");
        button.type = "button";
        button.setAttribute("aria-label", name);
        button.setAttribute("aria-pressed", "false");
        button.textContent = "★";
        button.addEventListener("click", this.rate.bind(this, i + 1));
        stars.appendChild(button);
      }, this);
      this.status = document.createElement("p");
      this.status.textContent = "Not rated yet";
      group.append(caption, stars, this.status);
      root.appendChild(group);
    }

    rate(value) {
      this.value = value;
      this.shadowRoot.querySelectorAll("button").forEach(function (button, i) {
        button.setAttribute("aria-pressed", String(i < value));
      });
      this.status.textContent = "Your rating: " + value + " of 5";
      this.dispatchEvent(new CustomEvent("change", { bubbles: true, composed: true }));
    }
  }

  customElements.define("star-rating", StarRating);

  document.getElementById("profile-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var name = document.getElementById("display-name").value.trim() || "Anonymous";
    var category = document.getElementById("category").value;
    var rating = document.getElementById("rating").value;
    document.getElementById("profile-status").textContent =
      "Profile saved: " + name + ", " + category + ", rated " + (rating ? rating + " of 5" : "not rated");
  });
})();
