/*
 * app.js - the pages' behaviour: the match list (index.html) and one
 * match (match.html), live from the recorder's JSON API, or - in a file
 * written by `arbiter report --html` - from window.ARB_DATA, which holds
 * the report at every seq.  The drawing is table.js's; this file only
 * fetches, keeps the history slider and follows the live stream.
 *
 * DESIGN: both sources answer the same three questions (the report at a
 * seq, the events so far, "tell me when something was recorded"), so the
 * page has one code path whether it is served or embedded.  Reports at
 * earlier seqs never change, so they are cached; the latest is refetched
 * on each live message.  A read replica without a running dealt match's
 * deal secret cannot draw its table (the hands follow from the deal): it
 * says so (`sealed`, on the stream or as the state's 503), and the page
 * lists the moves as they come, without the table and the slider, until
 * the close reveals the deal and a state arrives.  Hooks for tests:
 * body's data-seq (the seq shown), data-last (the latest seq known),
 * data-ready and data-sealed.
 */
(function () {
    "use strict";
    var ARB = window.ARB, esc = ARB.esc, getJSON = ARB.getJSON,
        $ = function (id) {
            return document.getElementById(id);
        };
    var params = new URLSearchParams(location.search);
    var LINE_SHOWN = 160;   /* characters of an event's line in the list */
    if (params.get("overlay") === "1")
        document.body.classList.add("overlay");

    /* Calls f at most once per 200 ms, and once more after the last. */
    function throttle(f) {
        var busy = false, again = false;
        return function run() {
            if (busy) { again = true; return; }
            busy = true;
            Promise.resolve(f()).catch(function () {}).then(function () {
                setTimeout(function () {
                    busy = false;
                    if (again) { again = false; run(); }
                }, 200);
            });
        };
    }
    /* "open game: g; players: a b; ..." -> ["a", "b"] */
    function playersOf(line) {
        var m = /players: ([^;]*)/.exec(line || "");
        return m ? m[1].trim().split(/\s+/) : [];
    }
    function gameOf(line) {
        var m = /game: ([^;\s]*)/.exec(line || "");
        return m ? m[1] : "";
    }

    /* ---- the match list ------------------------------------------------- */

    function index() {
        var players = {};
        function row(m) {
            var p = m.players || players[m.match];
            /* A tournament's page is its director's board (until
             * 2026-12-06 the list sent it to /m/, a bare report). */
            var page = m.game === "tournament" ? "/t/" : "/m/";
            return '<tr data-match="' + esc(m.match) + '"><td><a href="' +
                esc(page + encodeURIComponent(m.match)) + '">' +
                esc(m.match) +
                "</a></td><td>" + esc(m.game) + '</td><td class="players">' +
                esc(p ? p.join(", ") : "") + "</td><td>" + esc(m.status) +
                '</td><td class="seq">' + esc(m.last_seq) + "</td><td>" +
                esc(String(m.last || "").replace("T", " ").replace(/\..*/, ""))
                + "</td></tr>";
        }
        function names(list) {
            return Promise.all(list.filter(function (m) {
                return !m.players && !players[m.match];
            }).map(function (m) {
                return getJSON("/api/m/" + encodeURIComponent(m.match) +
                               "/events?from=0&limit=1").then(function (ev) {
                    players[m.match] = playersOf(ev[0] && ev[0].line);
                }).catch(function () {});
            }));
        }
        /* The list comes in pages (by count and bytes): "after" the last
         * id, until a page is empty. */
        function all(list) {
            var after = list.length ? "?after=" + encodeURIComponent(
                list[list.length - 1].match) : "";
            return getJSON("/api/matches" + after).then(function (page) {
                /* in id order: a page that does not move on is the end */
                var on = page.length && (!list.length || page[0].match >
                                         list[list.length - 1].match);
                return on ? all(list.concat(page)) : list;
            });
        }
        var load = throttle(function () {
            return all([]).then(function (list) {
                return names(list).then(function () {
                    document.querySelector("#matches tbody").innerHTML =
                        list.map(row).join("");
                    $("note").textContent = list.length + " match" +
                        (list.length === 1 ? "" : "es");
                    document.body.dataset.ready = "1";
                });
            }).catch(function (e) { $("note").textContent = String(e); });
        });
        load();
        ARB.follow("/api/live", { ack: load, open: load, reset: load });
    }

    /* ---- one match ------------------------------------------------------ */

    function embedded(D) {
        return {
            id: D.match, game: D.game, last: D.reports.length - 1,
            report: function (seq) {
                return Promise.resolve(D.reports[seq]);
            },
            events: function () { return Promise.resolve(D.events); },
            live: null
        };
    }
    function served(id) {
        var base = "/api/m/" + encodeURIComponent(id), cache = {}, events = [];
        return {
            id: id, game: "",
            report: function (seq, latest) {
                if (!latest && cache[seq])
                    return Promise.resolve(cache[seq]);
                return getJSON(base + "/state" + (latest ? "" : "?at=" + seq))
                    .then(function (r) { cache[r.seq] = r; return r; });
            },
            remember: function (r) { cache[r.seq] = r; },
            /* Events after the last one known, page by page, up to seq
             * `upto` (a page may hold fewer than asked: it is also
             * bounded in bytes), or until a page comes back empty. */
            events: function (upto) {
                var more = function () {
                    if (upto !== undefined && events.length > upto)
                        return events;
                    return getJSON(base + "/events?from=" + events.length +
                                   "&limit=1000").then(function (page) {
                        page.forEach(function (e) {
                            if (e.seq === events.length)
                                events.push(e);
                        });
                        return page.length ? more() : events;
                    });
                };
                return Promise.resolve(more());
            },
            add: function (e) {
                if (e.seq === events.length)
                    events.push(e);
                return events;
            },
            live: function (on) { return ARB.follow(base + "/live", on); }
        };
    }

    function match() {
        var D = window.ARB_DATA, src, shown = -1, last = 0, events = [],
            ruled = [],
            latest = true, game = "",
            claim = D && D.claim && D.claim.diff;
        if (D) {
            src = embedded(D);
        } else {
            var m = /\/m\/([^/?#]+)/.exec(location.pathname);
            src = served(m ? decodeURIComponent(m[1]) : "");
        }
        game = src.game || "";
        $("title").textContent = src.id;
        document.title = "arbiter: " + src.id;
        if (D) {
            $("home").hidden = true;
            $("live").textContent = "report";
            $("chain").textContent = D.chain ? D.chain.text : "";
            $("chain").className = "chain nooverlay " + (D.chain &&
                D.chain.ok === true ? "ok" : D.chain && D.chain.ok === false
                ? "bad" : "");
            if (D.refused) {
                $("refused").hidden = false;
                $("refused").textContent = "Replay stopped: event " +
                    D.refused.seq + " '" + D.refused.line + "' is refused (" +
                    D.refused.rule + ": " + D.refused.message + ").  The " +
                    "table is shown up to event " + (D.reports.length - 1) +
                    ".";
            }
            if (D.claim)
                $("claim").innerHTML = "<h2>Claim " + esc(D.claim.file) +
                    "</h2><pre>" + esc(D.claim.text) + "</pre>";
        }

        /* The moves a ruling in force at the position shown has voided,
         * amended or let stand: seq -> the ruling (as played beside as
         * ruled in one list; until 2026-12-06 only the Rulings panel
         * told them apart). */
        function ruledMoves() {
            var by = {};
            ruled.forEach(function (r) {
                /* a move let stand is the ruling's own event (it names
                 * no target: it was never flagged until 2026-12-06) */
                if (!r.undone_by)
                    by[r.target !== undefined ? r.target : r.seq] = r;
            });
            return by;
        }
        function moves() {
            var by = ruledMoves();
            $("moves").innerHTML = events.map(function (e) {
                var r = by[e.seq], what = { void: "voided", amend: "amended",
                                            stands: "stands" };
                /* A claim's line is its whole claim: cut in the list,
                 * whole in the tooltip (and in the events). */
                var line = e.line.length > LINE_SHOWN
                    ? e.line.slice(0, LINE_SHOWN - 1) + "\u2026" : e.line;
                return '<div data-seq="' + e.seq + '" class="' +
                    (e.seq === shown ? "now" : e.seq > shown ? "after" : "") +
                    (r ? " ruled ruled-" + esc(r.kind) : "") + '"' +
                    (line !== e.line ? ' title="' + esc(e.line) + '"' : "") +
                    '><span class="line">' + esc(e.seq) + ". " +
                    esc(line) + "</span>" +
                    (r ? ' <em class="ruling-note">' +
                     esc(what[r.kind] || r.kind) + " at seq " + esc(r.seq) +
                     (r.kind === "amend" && r.move !== undefined ?
                      ": " + esc(r.move) : "") + "</em>" : "") +
                    "</div>";
            }).join("");
            /* Scrolls the list only, never the page (scrollIntoView
             * would move the window on a phone). */
            var box = $("moves"), now = box.querySelector(".now");
            if (now)
                box.scrollTop = now.offsetTop - box.clientHeight / 2;
        }
        /* Sealed here (the answer to a state, or the stream's first
         * message): the moves up to seq s.seq, without the table. */
        function seal(s) {
            document.body.dataset.sealed = "1";
            $("history").hidden = true;
            $("status").textContent = "sealed";
            $("table").innerHTML = '<p class="chain sealed">' +
                esc(s.error) + "</p>";
            $("totals").innerHTML = $("results").innerHTML =
                $("verdicts").innerHTML = $("rulings").innerHTML = "";
            $("rulings-head").hidden = true;
            return src.events(s.seq).then(function (ev) {
                events = ev;
                game = game || s.game || (ev.length ? gameOf(ev[0].line)
                                                    : "");
                $("game").textContent = game;
                sealedAt(ev.length - 1);
                document.body.dataset.ready = "1";
            });
        }
        function sealedAt(seq) {
            shown = seq;
            setLast(seq);
            document.body.dataset.seq = seq;
            moves();
        }
        function draw(rep) {
            if (!rep)
                return;
            if (document.body.dataset.sealed) {
                delete document.body.dataset.sealed;
                $("history").hidden = false;
            }
            shown = rep.seq;
            game = ARB.game(rep, game);
            $("game").textContent = game;
            $("status").textContent = rep.closed ? "closed" : rep.finished
                ? "finished" : "in play";
            $("table").innerHTML = ARB.table(rep, game);
            $("totals").innerHTML = ARB.totals(rep, claim);
            $("results").innerHTML = ARB.results(rep, game, claim);
            $("verdicts").innerHTML = ARB.verdicts(rep);
            $("rulings").innerHTML = ARB.rulings(rep);
            $("rulings-head").hidden = !$("rulings").innerHTML;
            ruled = rep.rulings || [];
            $("at").textContent = rep.seq;
            $("slider").value = rep.seq;
            document.body.dataset.seq = rep.seq;
            moves();
        }
        /* ?at=N opens the page on event N; the slider keeps the address
         * in step, so the address is a link to what is shown. */
        var at = params.get("at");
        at = at !== null && /^\d+$/.test(at) ? parseInt(at, 10) : null;
        var wanted = null;      /* the seq last asked for by the reader */
        function show(seq) {
            if (document.body.dataset.sealed)
                return Promise.resolve();   /* no state to show here */
            seq = Math.max(0, Math.min(seq, last));
            latest = seq >= last;
            wanted = seq;
            /* At the latest the page follows the match, and so does its
             * address: no ?at= (until 2026-12-06 it kept the ?at=N it was
             * stepped to, and a reload or a shared link froze there). */
            if (latest && src.live)
                params.delete("at");
            else
                params.set("at", seq);
            try {
                history.replaceState(null, "", location.pathname +
                    (params.toString() ? "?" + params.toString() : ""));
            } catch (e) { /* a page that may not change its address */ }
            /* Answers to a fast-moving slider may come back out of order:
             * only the one asked for last is drawn.  One that failed, or
             * came damaged, is said in the table's place, and nothing of
             * the position shown before stays as if it were this one
             * (until 2026-12-07 it stayed, under the slider moved on). */
            return src.report(seq).then(function (r) {
                if (r && r.seq === wanted)
                    draw(r);
            }).catch(function (e) {
                if (seq === wanted)
                    failed(seq, e);
            });
        }
        function failed(seq, e) {
            $("table").textContent = String(e);
            $("totals").innerHTML = $("results").innerHTML =
                $("verdicts").innerHTML = $("rulings").innerHTML = "";
            $("rulings-head").hidden = true;
            $("at").textContent = seq;
            delete document.body.dataset.seq;
            shown = seq;
            moves();
        }
        function setLast(n) {
            last = n;
            $("last").textContent = n;
            $("slider").max = n;
            document.body.dataset.last = n;
        }
        /* The latest report known (rep, or fetched) and the events up to
         * it; then the page shows it, unless the slider is elsewhere. */
        function update(rep) {
            var got = rep ? Promise.resolve(rep)
                : D ? src.report(src.last) : src.report(0, true);
            return got.then(function (r) {
                return src.events(r.seq).then(function (ev) {
                    events = ev;
                    if (!game && ev.length)
                        game = gameOf(ev[0].line);
                    if (r.seq < last)
                        return moves();     /* an older answer: keep */
                    setLast(r.seq);
                    if (at !== null) {
                        var first = Math.min(at, r.seq);
                        at = null;
                        return show(first);
                    }
                    if (!latest)
                        return moves();
                    wanted = r.seq;
                    draw(r);
                });
            }).then(function () {
                document.body.dataset.ready = "1";
            }).catch(function (e) {
                if (e.status === 503 && e.body && e.body.where === "deal")
                    return seal({ seq: undefined, error: e.body.error });
                $("table").textContent = String(e);
            });
        }
        var refresh = throttle(function () { return update(null); });

        $("slider").addEventListener("input", function () {
            show(parseInt(this.value, 10));
        });
        $("prev").onclick = function () {
            if (shown > 0) show(shown - 1);
        };
        $("next").onclick = function () {
            if (shown < last) show(shown + 1);
        };
        $("follow").onclick = function () {
            latest = true;
            last = -1;          /* whatever comes is news */
            params.delete("at");
            try {
                history.replaceState(null, "", location.pathname +
                    (params.toString() ? "?" + params.toString() : ""));
            } catch (e) { /* as above */ }
            refresh();
        };
        $("moves").addEventListener("click", function (e) {
            var d = e.target.closest("[data-seq]");
            if (d) show(parseInt(d.dataset.seq, 10));
        });
        /* Keys anywhere on the page; on the slider its own (a second
         * step here would skip a position). */
        document.addEventListener("keydown", function (e) {
            if (e.target === $("slider") || e.altKey || e.ctrlKey ||
                e.metaKey)
                return;
            if (e.key === "ArrowLeft") $("prev").onclick();
            if (e.key === "ArrowRight") $("next").onclick();
            if (e.key === "Home") show(0);
            if (e.key === "End") $("follow").onclick();
        });
        var streaming = src.live && src.live({
            /* The stream starts with the state: the first draw. */
            state: function (r) {
                src.remember(r);
                update(r);
            },
            ack: function (e) {
                var got = src.add(e);
                /* Said to a screen reader (an aria-live region): each
                 * event as it is recorded, the line as in the list. */
                if (e.line !== undefined && $("announce"))
                    $("announce").textContent = e.seq + ". " +
                        (e.line.length > LINE_SHOWN
                         ? e.line.slice(0, LINE_SHOWN - 1) + "\u2026"
                         : e.line);
                if (document.body.dataset.sealed) {
                    /* No state follows to fetch what the list lacks: an
                     * ack met before the events it follows had come
                     * fetches them. */
                    (e.seq < got.length ? Promise.resolve(got)
                                        : src.events(e.seq))
                        .then(function (ev) {
                            events = ev;
                            sealedAt(ev.length - 1);
                        }).catch(function () {});
                } else if (e.seq === got.length - 1 && !latest) {
                    moves();
                }
            },
            sealed: function (s) { seal(s); },
            /* events were missed and cannot be resumed: the state that
             * follows is drawn, and the events fetched up to it */
            reset: function () { refresh(); }
        });
        /* Without a stream (or before it answers), fetch. */
        if (D || !streaming)
            refresh();
        else
            setTimeout(function () {
                if (document.body.dataset.ready !== "1") refresh();
            }, 1500);
    }

    if ($("matches"))
        index();
    else
        match();
})();
