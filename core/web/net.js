/*
 * net.js - how the served pages talk to the recorder (docs/HTTP.md,
 * docs/WEB.md): the token, JSON reads and the live streams.  Adds to
 * window.ARB:
 *
 *   ARB.getJSON(url)        a promise of the JSON answer (an Error naming
 *                           the URL, the status and the recorder's error)
 *   ARB.follow(url, on)     follows a live stream, calling on.ack,
 *                           on.state, on.reset with each message's JSON
 *                           and on.open on each (re)connection; false when
 *                           the browser cannot read a stream
 *
 * DESIGN: a token never goes in a URL the page requests: it is sent as
 * the Authorization header only, and the streams are read with fetch
 * (which can send headers) rather than EventSource (which cannot).  A
 * page in a file (arbiter report --html) loads this too and asks nothing.
 */
(function (root) {
    "use strict";
    var ARB = root.ARB = root.ARB || {};

    /* The token: given once as #token=T (a fragment never reaches a
     * server or its logs), entered in the form a 401 shows, or - for old
     * links - as ?token=T; it is kept in sessionStorage (this tab only)
     * and taken off the address.  It goes with every request as the
     * Authorization header, never in a URL: the live stream is read with
     * fetch, which can set headers, not with EventSource. */
    var KEY = "arbiter.token", token = null;
    try { token = sessionStorage.getItem(KEY); } catch (e) { /* none */ }
    (function () {
        var params = new URLSearchParams(location.search),
            hash = new URLSearchParams(location.hash.slice(1));
        var given = hash.get("token") || params.get("token");
        if (!given)
            return;
        token = given;
        try { sessionStorage.setItem(KEY, given); } catch (e) { /* kept */ }
        params.delete("token");
        try {
            history.replaceState(null, "", location.pathname +
                (params.toString() ? "?" + params.toString() : ""));
        } catch (e) { /* a page that may not change its address */ }
    })();
    /* A new #token= on the same page changes no document: load again,
     * which takes it as above. */
    window.addEventListener("hashchange", function () {
        if (new URLSearchParams(location.hash.slice(1)).get("token"))
            location.reload();
    });
    function headers(accept) {
        var h = { Accept: accept };
        if (token)
            h.Authorization = "Bearer " + token;
        return h;
    }
    /* After a 401: a form for the token, once per page. */
    function askToken() {
        if (document.getElementById("tokenform"))
            return;
        var f = document.createElement("form");
        f.id = "tokenform";
        f.className = "bar nooverlay";
        f.innerHTML = '<label>Token <input name="t" type="password" ' +
            'autocomplete="off"></label> <button>Use</button>';
        f.onsubmit = function (e) {
            e.preventDefault();
            try { sessionStorage.setItem(KEY, f.t.value); } catch (x) { }
            location.reload();
        };
        document.body.insertBefore(f, document.body.firstChild);
    }
    ARB.getJSON = function (url) {
        return fetch(url, { headers: headers("application/json") })
            .then(function (r) {
                if (r.status === 401)
                    askToken();
                if (r.ok)
                    return r.json();
                return r.json().catch(function () { return {}; })
                    .then(function (e) {
                        throw new Error(url + ": " + r.status + " " +
                                        (e.error || r.statusText));
                    });
            });
    };

    /* The live stream (docs/HTTP.md): `ack` after each acknowledged event,
     * on a match's stream `state`, the report after it (the first one on
     * connecting), and `reset` when a reconnect cannot resume.  Read as
     * Server-Sent Events over fetch, so the token goes as a header; on a
     * reconnect Last-Event-ID asks for what was missed.  on.open runs on
     * each (re)connection.  false when the browser cannot stream. */
    ARB.follow = function (url, on) {
        var pill = document.getElementById("live"), last = null,
            wait = 1000;
        if (!pill || !window.fetch || !window.TextDecoder ||
            !window.ReadableStream)
            return false;
        function message(block) {
            var kind = "message", data = [], id = null;
            block.split("\n").forEach(function (l) {
                var c = l.indexOf(":"), k = c < 0 ? l : l.slice(0, c),
                    v = c < 0 ? "" : l.slice(c + 1).replace(/^ /, "");
                if (k === "event") kind = v;
                else if (k === "data") data.push(v);
                else if (k === "id") id = v;
            });
            if (id !== null)
                last = id;
            if (!data.length || !on[kind])
                return;
            var v;
            try { v = JSON.parse(data.join("\n")); } catch (x) { return; }
            on[kind](v);
        }
        function connect() {
            var h = headers("text/event-stream");
            if (last !== null)
                h["Last-Event-ID"] = last;
            fetch(url, { headers: h, cache: "no-store" }).then(function (r) {
                if (r.status === 401)
                    askToken();
                if (!r.ok || !r.body)
                    throw new Error(String(r.status));
                pill.textContent = "live"; pill.className = "pill live";
                wait = 1000;
                if (on.open) on.open();
                var rd = r.body.getReader(), dec = new TextDecoder(),
                    buf = "";
                function pump() {
                    return rd.read().then(function (x) {
                        var i;
                        if (x.done)
                            throw new Error("ended");
                        buf += dec.decode(x.value, { stream: true });
                        while ((i = buf.indexOf("\n\n")) >= 0) {
                            message(buf.slice(0, i));
                            buf = buf.slice(i + 2);
                        }
                        return pump();
                    });
                }
                return pump();
            }).catch(function () {
                pill.textContent = "reconnecting"; pill.className = "pill off";
                setTimeout(connect, wait);
                wait = Math.min(wait * 2, 15000);
            });
        }
        connect();
        return true;
    };
})(window);
