// Shared by every page: who is signed in (this tab's sessionStorage) and calls to the server's JSON API.
"use strict";

var Chat = (function () {
  var TOKEN = "chat.token";
  var NAME = "chat.name";

  function token() { return window.sessionStorage.getItem(TOKEN); }
  function name() { return window.sessionStorage.getItem(NAME); }

  function signIn(account) {
    window.sessionStorage.setItem(TOKEN, account.token);
    window.sessionStorage.setItem(NAME, account.name);
  }

  function signOut() {
    window.sessionStorage.removeItem(TOKEN);
    window.sessionStorage.removeItem(NAME);
    window.location.assign("/");
  }

  // Pages behind the sign-in send a visitor without a session back to it.
  function requireSignIn() {
    if (!token()) {
      window.location.replace("/");
      return false;
    }
    return true;
  }

  // Resolves to {ok, status, data}; a 401 (the server forgot us: it was restarted) signs out.
  function api(method, path, body) {
    var headers = {"Content-Type": "application/json"};
    if (token()) headers["X-Chat-Token"] = token();
    return fetch(path, {method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body)})
      .then(function (response) {
        return response.json().then(function (data) {
          if (response.status === 401) signOut();
          return {ok: response.ok, status: response.status, data: data};
        });
      });
  }

  return {token: token, name: name, signIn: signIn, signOut: signOut, requireSignIn: requireSignIn, api: api};
})();
