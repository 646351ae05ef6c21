// Checkout page: shipping form with client-side validation on submit. Each invalid field gets its
// message (linked with aria-describedby) and a summary alert counts them. A valid order is saved as
// the last order, the cart is emptied and the browser goes to the confirmation page.
"use strict";

(function () {
  Shop.mountHeader("checkout");

  var el = Shop.el;
  var cart = Shop.cartLines();
  if (cart.lines.length === 0) {
    document.getElementById("checkout-empty").hidden = false;
    return;
  }
  document.getElementById("checkout-layout").hidden = false;

  var summaryLines = document.getElementById("summary-lines");
  cart.lines.forEach(function (line) {
    summaryLines.appendChild(
      el("li", { "data-testid": "summary-line-" + line.id }, [
        el("span", { text: line.qty + " × " + line.name }),
        el("span", { text: Shop.formatMoney(line.lineCents) }),
      ])
    );
  });
  document.getElementById("summary-total").textContent = "Total: " + Shop.formatMoney(cart.totalCents);

  var form = document.getElementById("checkout-form");
  var summary = document.getElementById("error-summary");

  function value(id) {
    return document.getElementById(id).value.trim();
  }

  // [field id, message or null], in the order the fields appear.
  function validate() {
    var postcode = value("postcode");
    return [
      ["full-name", value("full-name") ? null : "Full name is required"],
      ["address", value("address") ? null : "Address is required"],
      ["city", value("city") ? null : "City is required"],
      ["postcode", !postcode ? "Postcode is required" : /^\d{5}$/.test(postcode) ? null : "Postcode must be 5 digits"],
      ["country", value("country") ? null : "Country is required"],
      ["terms", document.getElementById("terms").checked ? null : "You must agree to the terms"],
    ];
  }

  function showField(id, message) {
    var input = document.getElementById(id);
    var error = document.getElementById(id + "-error");
    error.textContent = message || "";
    error.hidden = !message;
    if (message) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", id + "-error");
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var results = validate();
    var errors = results.filter(function (r) {
      return r[1];
    });
    results.forEach(function (r) {
      showField(r[0], r[1]);
    });
    if (errors.length > 0) {
      summary.textContent = "Please fix " + errors.length + (errors.length === 1 ? " error" : " errors");
      summary.hidden = false;
      document.getElementById(errors[0][0]).focus();
      return;
    }
    summary.textContent = "";
    summary.hidden = true;

    var country = document.getElementById("country");
    var user = Shop.currentUser();
    Shop.saveOrder({
      number: Shop.orderNumber(cart.totalCents),
      email: user ? user.email : "",
      fullName: value("full-name"),
      address: value("address"),
      city: value("city"),
      postcode: value("postcode"),
      country: country.options[country.selectedIndex].text,
      lines: cart.lines,
      totalCents: cart.totalCents,
    });
    Shop.clearCart();
    window.location.assign("/confirmation.html");
  });
})();
