// Shared by every page: session, cart, money formatting, the site header and the sign-out dialog.
// Loaded (not deferred) in <head> so that the sign-in guard redirects before anything is drawn.
// Everything lives in sessionStorage, so each new browser context starts signed out with an empty cart.
"use strict";

(function () {
  var USER_KEY = "shop.user";
  var CART_KEY = "shop.cart";
  var ORDER_KEY = "shop.lastOrder";
  var PASSWORD = "secret123";

  function read(key, fallback) {
    try {
      var raw = window.sessionStorage.getItem(key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch (e) {
      return fallback;
    }
  }

  function write(key, value) {
    window.sessionStorage.setItem(key, JSON.stringify(value));
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  // "$12.50", "$1,290.00": always en-US, whatever the browser locale.
  function formatMoney(cents) {
    return (
      "$" +
      (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    );
  }

  function products() {
    return window.SHOP_PRODUCTS || [];
  }

  function findProduct(id) {
    return (
      products().filter(function (p) {
        return p.id === id;
      })[0] || null
    );
  }

  // ---- session -------------------------------------------------------------------------------

  function currentUser() {
    var user = read(USER_KEY, null);
    return user && typeof user.email === "string" ? user : null;
  }

  function checkCredentials(email, password) {
    return typeof email === "string" && email.indexOf("@") !== -1 && password === PASSWORD;
  }

  function signIn(email) {
    write(USER_KEY, { email: email });
  }

  function signOut() {
    [USER_KEY, CART_KEY, ORDER_KEY].forEach(function (key) {
      window.sessionStorage.removeItem(key);
    });
  }

  // ---- cart: [{id, qty}] in the order items were first added ------------------------------------

  function cart() {
    var items = read(CART_KEY, []);
    return Array.isArray(items)
      ? items.filter(function (i) {
          return findProductRaw(i.id) && i.qty > 0;
        })
      : [];
  }

  // data.js is deferred, so it may not be loaded yet when the header is drawn; count without it.
  function findProductRaw(id) {
    return !window.SHOP_PRODUCTS || findProduct(id);
  }

  function addToCart(id, qty) {
    var items = cart();
    var existing = items.filter(function (i) {
      return i.id === id;
    })[0];
    if (existing) existing.qty = Math.min(99, existing.qty + qty);
    else items.push({ id: id, qty: qty });
    write(CART_KEY, items);
    updateCartCount();
  }

  function removeFromCart(id) {
    write(
      CART_KEY,
      cart().filter(function (i) {
        return i.id !== id;
      })
    );
    updateCartCount();
  }

  function clearCart() {
    window.sessionStorage.removeItem(CART_KEY);
    updateCartCount();
  }

  function cartCount() {
    return cart().reduce(function (sum, i) {
      return sum + i.qty;
    }, 0);
  }

  // Lines with product details: [{id, name, qty, priceCents, lineCents}] and the total in cents.
  function cartLines() {
    var lines = cart().map(function (i) {
      var p = findProduct(i.id);
      return { id: i.id, name: p.name, qty: i.qty, priceCents: p.priceCents, lineCents: p.priceCents * i.qty };
    });
    var total = lines.reduce(function (sum, l) {
      return sum + l.lineCents;
    }, 0);
    return { lines: lines, totalCents: total };
  }

  // Deterministic order number: TB-(1000 + total in cents modulo 9000), e.g. one Trail Mug ($12.50)
  // gives TB-2250, two Compasses ($49.98) give TB-5998 (1000 + 4998).
  function orderNumber(totalCents) {
    return "TB-" + (1000 + (totalCents % 9000));
  }

  function saveOrder(order) {
    write(ORDER_KEY, order);
  }

  function lastOrder() {
    return read(ORDER_KEY, null);
  }

  // ---- chrome: header with navigation, welcome text, sign-out button and its dialog -------------

  function updateCartCount() {
    var count = document.getElementById("cart-count");
    if (count) count.textContent = String(cartCount());
  }

  function mountHeader(current) {
    var user = currentUser();
    var header = document.querySelector("header.site-header");
    if (!header || !user) return;

    function navLink(href, page, children, testid) {
      return el(
        "a",
        { href: href, "data-testid": testid, "aria-current": current === page ? "page" : null },
        children
      );
    }

    var inner = el("div", { className: "container header-inner" }, [
      el("a", { className: "brand", href: "/products.html", "data-testid": "brand" }, [
        el("img", { src: "/favicon.svg", alt: "", width: "28", height: "28" }),
        "Trailblaze Outfitters",
      ]),
      el("nav", { "aria-label": "Main", className: "main-nav" }, [
        el("ul", { role: "list" }, [
          el("li", {}, [navLink("/products.html", "products", ["Products"], "nav-products")]),
          el("li", {}, [
            navLink(
              "/cart.html",
              "cart",
              ["Cart (", el("span", { id: "cart-count", "data-testid": "cart-count", text: "0" }), ")"],
              "cart-link"
            ),
          ]),
        ]),
      ]),
      el("div", { className: "account" }, [
        el("p", { className: "welcome", "data-testid": "welcome", text: "Welcome, " + user.email }),
        el("button", {
          type: "button",
          className: "button button-secondary",
          id: "sign-out",
          "data-testid": "sign-out",
          text: "Sign out",
        }),
      ]),
    ]);
    header.appendChild(inner);
    updateCartCount();

    var dialog = el(
      "dialog",
      {
        id: "signout-dialog",
        className: "dialog",
        "aria-labelledby": "signout-title",
        "aria-describedby": "signout-desc",
        "data-testid": "signout-dialog",
      },
      [
        el("h2", { id: "signout-title", text: "Sign out?" }),
        el("p", { id: "signout-desc", text: "Your cart will be emptied and you will need to sign in again." }),
        el("div", { className: "dialog-actions" }, [
          el("button", {
            type: "button",
            className: "button button-secondary",
            id: "signout-cancel",
            "data-testid": "signout-cancel",
            text: "Cancel",
          }),
          el("button", {
            type: "button",
            className: "button button-danger",
            id: "signout-confirm",
            "data-testid": "signout-confirm",
            text: "Sign out",
          }),
        ]),
      ]
    );
    document.body.appendChild(dialog);

    document.getElementById("sign-out").addEventListener("click", function () {
      dialog.showModal();
      document.getElementById("signout-cancel").focus();
    });
    document.getElementById("signout-cancel").addEventListener("click", function () {
      dialog.close();
    });
    document.getElementById("signout-confirm").addEventListener("click", function () {
      signOut();
      dialog.close();
      window.location.assign("/");
    });
  }

  function param(name) {
    return new URLSearchParams(window.location.search).get(name);
  }

  window.Shop = {
    el: el,
    formatMoney: formatMoney,
    products: products,
    findProduct: findProduct,
    currentUser: currentUser,
    checkCredentials: checkCredentials,
    signIn: signIn,
    signOut: signOut,
    cart: cart,
    addToCart: addToCart,
    removeFromCart: removeFromCart,
    clearCart: clearCart,
    cartCount: cartCount,
    cartLines: cartLines,
    orderNumber: orderNumber,
    saveOrder: saveOrder,
    lastOrder: lastOrder,
    mountHeader: mountHeader,
    param: param,
  };

  // Sign-in guard: every page except the sign-in page needs a signed-in user.
  if (document.documentElement.getAttribute("data-auth") === "required" && !currentUser()) {
    window.location.replace("/");
  }
})();
