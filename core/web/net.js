/*
 * net.js - how the served pages talk to the recorder (docs/HTTP.md,
 * docs/WEB.md): the token, JSON reads and the live streams.  Adds to
 * window.ARB:
 *
 *   ARB.token()             the token the page holds, or null
 *   ARB.setToken(t)         keeps t (in the page's storage, below); null
 *                           forgets it
 *   ARB.request(m, url, d, ms)  a promise of {status, body, damaged}:
 *                           method m, JSON d (may be undefined) sent, the
 *                           JSON answer (or {error} when it is not JSON,
 *                           and then damaged when the status was 2xx);
 *                           rejected when the network failed or, with ms,
 *                           no answer came in ms milliseconds
 *   ARB.getJSON(url)        a promise of the JSON answer (an Error naming
 *                           the URL, the status and the recorder's error,
 *                           with .status and .body, the answer's JSON, for
 *                           any other status and for a damaged answer)
 *   ARB.follow(url, on)     follows a live stream, calling on.<event>
 *                           (ack, state, reset, sealed) with each
 *                           message's JSON,
 *                           on.open on each (re)connection and
 *                           on.stop(status, body) when the recorder
 *                           refuses it for good (401, 404); false when the
 *                           browser cannot read a stream
 *   ARB.askToken(why)       what a 401 does: a form for the token; a page
 *                           with its own form replaces it
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
     * and taken off the address.  A page whose body says
     * data-token-store="local" (the scorekeeper's) keeps it in
     * localStorage instead: a phone's tab reloaded, discarded or opened
     * again must not ask again while moves wait in its queue.  It goes
     * with every request as the Authorization header, never in a URL: the
     * live stream is read with fetch, which can set headers, not with
     * EventSource. */
    var KEY = "arbiter.token", token = null, store = null;
    try {
        store = document.body && document.body.dataset.tokenStore ===
            "local" ? localStorage : sessionStorage;
        token = store.getItem(KEY);
    } catch (e) { /* no storage: the token lasts as long as the page */ }
    function keep(t) {
        token = t || null;
        try {
            if (token)
                store.setItem(KEY, token);
            else
                store.removeItem(KEY);
        } catch (e) { /* kept in the page only */ }
    }
    ARB.token = function () { return token; };
    ARB.setToken = keep;
    (function () {
        var params = new URLSearchParams(location.search),
            hash = new URLSearchParams(location.hash.slice(1));
        var given = hash.get("token") || params.get("token");
        if (!given)
            return;
        keep(given);
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
    ARB.askToken = function () {
        if (document.getElementById("tokenform"))
            return;
        var f = document.createElement("form");
        f.id = "tokenform";
        f.className = "bar nooverlay";
        f.innerHTML = '<label>Token <input name="t" type="password" ' +
            'autocomplete="off"></label> <button>Use</button>';
        f.onsubmit = function (e) {
            e.preventDefault();
            keep(f.t.value);
            location.reload();
        };
        document.body.insertBefore(f, document.body.firstChild);
    };
    /* The answer's JSON, or {error} with the status's text when it has
     * none; .damaged when that answer was a success (2xx), whose body is
     * always JSON: one cut short or mangled on its way. */
    function answer(r) {
        return r.json().then(function (j) {
            return { status: r.status, body: j };
        }, function () {
            return { status: r.status, damaged: r.ok, body: {
                error: r.ok ? "the answer is not JSON"
                            : r.statusText || "not JSON" } };
        });
    }
    /* With ms, a request not answered in time is abandoned (rejected
     * like a network failure): a connection the network lost without a
     * word would otherwise never answer, and a page waiting on it would
     * wait for ever. */
    ARB.request = function (method, url, data, ms) {
        var h = headers("application/json"), opt, timer = null, ctl;
        if (data !== undefined)
            h["Content-Type"] = "application/json";
        opt = { method: method, headers: h, cache: "no-store",
                body: data !== undefined ? JSON.stringify(data) : undefined };
        if (ms && window.AbortController) {
            ctl = new AbortController();
            opt.signal = ctl.signal;
            timer = setTimeout(function () { ctl.abort(); }, ms);
        }
        return fetch(url, opt).then(answer).finally(function () {
            clearTimeout(timer);
        });
    };
    ARB.getJSON = function (url) {
        return ARB.request("GET", url).then(function (r) {
            if (r.status === 401)
                ARB.askToken(r.body.error);
            /* a damaged answer is no report: an error, as a failure */
            if (r.status >= 200 && r.status < 300 && !r.damaged)
                return r.body;
            var e = new Error(url + ": " + r.status + " " +
                              ((r.body && r.body.error) || ""));
            e.status = r.status;    /* for a page that tells answers apart */
            e.body = r.body;
            throw e;
        });
    };

    /* The live stream (docs/HTTP.md): `ack` after each acknowledged event,
     * on a match's stream `state`, the report after it (the first one on
     * connecting), and `reset` when a reconnect cannot resume.  Read as
     * Server-Sent Events over fetch, so the token goes as a header; on a
     * reconnect Last-Event-ID asks for what was missed.  on.open runs on
     * each (re)connection.  A 401 or 404 is not retried (a withdrawn
     * token, no such match): on.stop says so.  The recorder writes at
     * least a comment every 15 s, so a stream silent for SILENT_MS is a
     * connection the network lost without a word (a phone's Wi-Fi): it is
     * dropped and opened again.  false when the browser cannot stream. */
    var SILENT_MS = 40000;
    ARB.follow = function (url, on) {
        var pill = document.getElementById("live"), last = null,
            wait = 1000;
        if (!pill || !window.fetch || !window.TextDecoder ||
            !window.ReadableStream || !window.AbortController)
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
            var h = headers("text/event-stream"), ctl = new AbortController(),
                timer = null;
            function quiet() {
                clearTimeout(timer);
                timer = setTimeout(function () { ctl.abort(); }, SILENT_MS);
            }
            if (last !== null)
                h["Last-Event-ID"] = last;
            quiet();
            fetch(url, { headers: h, cache: "no-store", signal: ctl.signal })
                .then(function (r) {
                if (r.status === 401 || r.status === 404) {
                    clearTimeout(timer);
                    pill.textContent = "stopped"; pill.className = "pill off";
                    return answer(r).then(function (a) {
                        if (r.status === 401)
                            ARB.askToken(a.body.error);
                        if (on.stop)
                            on.stop(a.status, a.body);
                    });
                }
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
                        quiet();
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
                clearTimeout(timer);
                pill.textContent = "reconnecting"; pill.className = "pill off";
                setTimeout(connect, wait);
                wait = Math.min(wait * 2, 15000);
            });
        }
        connect();
        return true;
    };
})(window);
