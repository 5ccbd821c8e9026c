/*
 * board.js - the director's board of a tournament (/t/<id>): every table
 * of the latest round with its status, what needs the director first
 * (the order is the server's, core/board.c), and the standings.  Both are
 * fetched again after each acknowledged event of any match (the live
 * stream of docs/HTTP.md, through net.js), at most every 500 ms.
 */
(function () {
    "use strict";
    var esc = window.ARB.esc, getJSON = window.ARB.getJSON,
        $ = function (id) {
            return document.getElementById(id);
        };
    var id = decodeURIComponent(location.pathname.split("/")[2] || "");
    var LABEL = { disputed: "disputed claim", undo_requested: "undo requested",
                  finished: "finished: close it", not_started: "not started",
                  playing: "playing", closed: "closed" };

    function when(ms) {
        return ms ? new Date(ms).toISOString().slice(11, 19) : "";
    }
    function matchLink(m) {
        return "<a href=\"" + esc("/m/" + encodeURIComponent(m)) +
            "\">" + esc(m) + "</a>";
    }
    function board(b) {
        $("round").textContent = "round " + b.round;
        $("board").innerHTML = "<table class=\"grid\"><tr><th>table</th>" +
            "<th>players</th><th>status</th><th>seq</th><th>last event</th>" +
            "<th>match</th></tr>" + b.tables.map(function (t) {
                return "<tr class=\"st-" + esc(t.status) + "\" data-table=\"" +
                    esc(t.table) + "\" data-status=\"" + esc(t.status) +
                    "\"><td>" +
                    esc(t.table) + "</td><td>" + esc(t.players.join(" – ")) +
                    "</td><td>" + esc(LABEL[t.status] || t.status) +
                    (t.undo_seq ? " (seq " + t.undo_seq + ")" : "") +
                    /* a dealt table this recorder cannot judge (a read
                     * replica without the key): it may be finished */
                    (t.sealed ? " (sealed here: ask the primary)" : "") +
                    /* its match does not count for it (docs/TOURNAMENT.md) */
                    (t.problem ? '<br><span class="problem">does not ' +
                     "count: " + esc(t.problem) + "</span>" : "") +
                    /* the time of its last event (a note, the open:
                     * "last move" said more than it knew until
                     * 2026-12-06); none before a move */
                    "</td><td>" + t.seq + "</td><td>" +
                    (t.status === "not_started" ? "" : when(t.last_move_ms)) +
                    "</td><td>" + matchLink(t.match) + "</td></tr>";
            }).join("") + "</table>";
    }
    function standings(s) {
        $("standings").innerHTML = "<table class=\"grid\"><tr><th>rank</th>" +
            "<th>player</th><th>points (" + esc(s.rule) + ")</th><th>GP</th>" +
            "<th>W–D–L</th><th>matches</th></tr>" +
            s.standings.map(function (l) {
                return "<tr data-player=\"" + esc(l.player) + "\"><td>" +
                    l.rank + "</td><td>" + esc(l.player) +
                    (l.withdrawn ? " <span class=\"withdrawn\">" +
                     "(withdrew after round " + l.withdrawn.after_round +
                     ")</span>" : "") +
                    "</td><td>" + l.points + "</td><td>" + l.gp + "</td><td>" +
                    l.wins + "–" + l.draws + "–" + l.losses + "</td><td>" +
                    l.matches.map(function (m) {
                        /* a forfeit names the tournament's act, as the
                         * CSV does (until 2026-12-06 the table's match),
                         * and, after the game, the game whose totals
                         * ranked the others (until 2026-12-06 the act
                         * alone) */
                        return m.forfeit_seq !== undefined ?
                            "<span class=\"forfeit\">" + esc(s.tournament) +
                            "@" + m.forfeit_seq + " (forfeit, " +
                            esc(m.result) + (m.played ? ", game " +
                            matchLink(m.match) + "@" + m.seq : "") +
                            ")</span>" :
                            matchLink(m.match) + "@" + m.seq;
                    }).join(" ") + "</td></tr>";
            }).join("") + "</table>";
        /* Not counted: a table whose match does not count says why (its
         * problem); the others are not closed yet (until 2026-12-06 all
         * were "not closed") */
        var why = {};
        (s.problems || []).forEach(function (p) { why[p.match] = p.why; });
        $("uncounted").textContent = s.uncounted.length ?
            "Not counted: " + s.uncounted.map(function (m) {
                return m + " (" + (why[m] || "not closed") + ")";
            }).join(", ") : "";
    }
    var busy = false, again = false;
    function load() {
        if (busy) { again = true; return; }
        busy = true;
        var base = "/api/t/" + encodeURIComponent(id);
        Promise.all([getJSON(base + "/board"), getJSON(base + "/standings")])
            .then(function (r) {
                board(r[0]);
                standings(r[1]);
                document.body.dataset.loads =
                    String(+(document.body.dataset.loads || 0) + 1);
                $("note").textContent = "";
                document.body.dataset.ready = "1";
            }).catch(function (e) { $("note").textContent = String(e); })
            .then(function () {
                setTimeout(function () {
                    busy = false;
                    if (again) { again = false; load(); }
                }, 500);
            });
    }
    $("title").textContent = id;
    load();
    /* every ack may change a table's status or the standings */
    window.ARB.follow("/api/live", { ack: load, open: load, reset: load });
})();
