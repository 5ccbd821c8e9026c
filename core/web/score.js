/*
 * score.js - the scorekeeper's page (score.html, /s/<match>): the table,
 * whose turn it is, buttons for the moves, every move judged by the
 * recorder before it is sent, and each one recorded exactly once however
 * the venue's Wi-Fi behaves (docs/WEB.md).
 *
 * DESIGN: the page has no rules of its own.  A move is judged by the
 * recorder (POST /api/m/<id>/judge: the one rule engine, on the committed
 * state) and only a legal one can be recorded.  Recording puts the move,
 * as the recorder spelled it and with a fresh client event id, into a
 * queue kept in localStorage, and shows it as pending; the queue's head is
 * sent (POST /api/m/<id>/move, `expect` = the seq it was judged at) until
 * an answer comes back.  A lost answer (network error, a reload, a
 * closed tab) leaves it queued, and it is sent again with the same id:
 * the recorder answers a repeated id with the original seq, so the move
 * lands once.  One event at a time is in flight, as at the console: a
 * move judged while another is unacknowledged would be judged on a state
 * that is about to change.
 *
 * The token, the requests and the live stream are net.js's, as on the
 * other pages; this page's body asks it to keep the token in
 * localStorage (data-token-store), so a phone's page reloaded, discarded
 * or opened again does not ask again while its queue waits.  The token is
 * asked once, in this page's own form, and checked before it is kept.
 *
 * Hooks for tests: body's data-ready, data-seq (the seq of the state
 * shown), data-pending (queued events), data-verdict ("legal",
 * "refused" or ""), data-acked (seq of the last acknowledged event) and
 * data-dup ("1" when that ack was a repeat's).
 */
(function () {
    "use strict";
    var ARB = window.ARB, esc = ARB.esc, $ = function (id) {
        return document.getElementById(id);
    };
    var body = document.body;
    var match = decodeURIComponent(location.pathname.split("/")[2] || "");
    var base = "/api/m/" + encodeURIComponent(match);
    var KEY = "arbiter.score." + match + ".";
    var rep = null, game = "", events = [], judged = null, sending = false;
    var retryMs = 0, typeSel = null;
    /* Each check is numbered: only the answer to the latest, for the move
     * still in the field, may arm Record (until 2026-12-06 the answer
     * that came back last did, and Record sent its move, whatever the
     * field then said). */
    var judgeNo = 0, checking = false;
    var undoArmed = -1, undoTimer = null, undoArmedAt = 0;
    /* A confirming tap counts only this long after the label named the
     * move: four quick taps are no two undos (until 2026-12-06 the third
     * armed the move before, the first undo answered at once, and the
     * fourth confirmed it before anyone could read the label). */
    var UNDO_READ_MS = 600;
    var queue = load("queue", []), mine = load("mine", []);

    function load(k, d) {
        try {
            var v = localStorage.getItem(KEY + k);
            return v ? JSON.parse(v) : d;
        } catch (e) {
            return d;
        }
    }
    function save(k, v) {
        localStorage.setItem(KEY + k, JSON.stringify(v));
    }
    /* Another tab of this match (same browser, same storage) keeps its
     * own queue and moves in memory: each save keeps what the other
     * wrote and this page has not itself taken off (until 2026-12-06 it
     * wrote over them, and a move queued in one tab was lost when the
     * other saved).  A tab reloaded may then send another's queued
     * event too: the same client event id, recorded once. */
    var gone = {};              /* cids answered here, seqs undone here */
    function saveQueue() {
        var have = {};
        queue.forEach(function (q) { have[q.cid] = 1; });
        save("queue", queue.concat(load("queue", []).filter(function (q) {
            return q && !have[q.cid] && !gone["c" + q.cid];
        })));
    }
    function saveMine() {
        var have = {};
        mine.forEach(function (x) { have[x.seq] = 1; });
        save("mine", mine.concat(load("mine", []).filter(function (x) {
            return x && !have[x.seq] && !gone["s" + x.seq];
        })).sort(function (a, b) { return a.seq - b.seq; }));
    }
    /* A line as a message quotes it: a long note is not repeated whole. */
    function brief(line) {
        return line.length > 120 ? line.slice(0, 117) + "\u2026" : line;
    }

    /* Every request: net.js's, with the token in its header.  One not
     * answered in ANSWER_MS is given up as a network failure: a move's is
     * then sent again with its id (the recorder answers a repeat with the
     * original seq), so a connection lost without a word on the venue's
     * Wi-Fi never holds the queue. */
    var ANSWER_MS = 10000;
    function api(method, path, data) {
        return ARB.request(method, path, data, ANSWER_MS);
    }

    /* A client event id no other page or console will use. */
    function newCid() {
        var b = new Uint8Array(8), s = "web-";
        crypto.getRandomValues(b);
        b.forEach(function (x) { s += (x < 16 ? "0" : "") + x.toString(16); });
        return s;
    }

    /* ---- showing ------------------------------------------------------- */

    function verdict(text, cls) {
        var v = $("verdict");
        v.innerHTML = text;
        v.className = "verdict " + (cls || "");
        body.dataset.verdict = cls || "";
    }
    function refusal(rule, msg) {
        verdict("Refused" + (rule ? " (" + esc(rule) + ")" : "") + ": " +
                esc(msg), "refused");
    }
    /* What a judged move would fix: for YAHchain the Sota's category and
     * points; for Chains the chain (its team, cards, cells and points);
     * for another game its record's fields (until 2026-12-06 every game
     * was read as YAHchain: "Sota : , 4 points for "). */
    function recordsText(recs) {
        return (recs || []).map(function (r) {
            var cat = ARB.category(r), cells = r.cells || [];
            if (r.sota !== undefined)
                return "Sota " + esc(r.sota) + ": " + esc(r.code || "") +
                    (cat ? " " + esc(cat) : "") + ", " +
                    esc(r.game_points !== undefined ? r.game_points
                        : r.points) + " points for " +
                    esc(r.owner || r.player || "");
            if (r.team !== undefined && cells.length)
                return "Chain of " + esc(r.team) + ": " +
                    esc((r.cards || []).join(" ")) + " at " +
                    esc(cells[0]) + "\u2013" + esc(cells[cells.length - 1]) +
                    " (" + esc(r.direction || "") + "), " + esc(r.points) +
                    " points";
            return Object.keys(r).filter(function (k) {
                return k !== "status";
            }).map(function (k) {
                return esc(k) + " " + esc(Array.isArray(r[k])
                    ? r[k].join(" ") : r[k]);
            }).join(", ");
        }).join("<br>");
    }
    function drawPending() {
        body.dataset.pending = String(queue.length);
        $("queue").textContent = queue.length ? queue.length + " pending" : "";
        $("queue").className = "pill" + (queue.length ? " off" : "");
        $("pending").innerHTML = queue.map(function (q) {
            return '<div data-cid="' + esc(q.cid) + '">pending: ' +
                esc(q.line) + (q.tries > 1 ? " (sent " + q.tries +
                " times, waiting for the recorder)" : "") + "</div>";
        }).join("");
        $("record").disabled = !judged || queue.length > 0;
    }
    /* A void or an amend, recorded here or by an arbiter elsewhere,
     * rules on a move: one of this page's is no longer its to undo
     * (until 2026-12-06 Undo kept offering a move an arbiter had
     * voided from the console). */
    function ruled(e) {
        if ((e.kind !== "void" && e.kind !== "amend")
            || typeof e.target !== "number"
            || !mine.some(function (x) { return x.seq === e.target; }))
            return;
        gone["s" + e.target] = 1;
        mine = mine.filter(function (x) { return x.seq !== e.target; });
        saveMine();
        if (undoArmed === e.target)
            disarm();
    }
    function drawMoves() {
        var voided = {};
        events.forEach(function (e) {
            if (e.kind === "void" && typeof e.target === "number")
                voided[e.target] = true;
            ruled(e);
        });
        $("moves").innerHTML = events.slice().reverse().map(function (e) {
            return '<div data-seq="' + e.seq + '"' + (voided[e.seq]
                ? ' class="void"' : "") + ">" + e.seq + ". " + esc(e.line) +
                "</div>";
        }).join("");
    }
    function draw() {
        if (!rep)
            return;
        game = ARB.game(rep, game);
        $("text").placeholder = game === "yahchain"
            ? "6D, alice 6D, place alice 6D" : "VERB PLAYER ARG\u2026";
        $("table").innerHTML = ARB.table(rep, game);
        $("totals").innerHTML = ARB.totals(rep);
        var s = rep.state || {};
        $("turn").textContent = rep.finished || rep.closed
            ? "The match is over." : s.turn ? "Turn: " + s.turn +
            (s.turn_hand ? " (hand " + s.turn_hand + ")" : "") : "";
        body.dataset.seq = String(rep.seq);
        pad();
    }

    /* ---- the buttons ----------------------------------------------------- */

    var TYPES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
    var SUITS = ["\u2660", "\u2665", "\u2666", "\u2663", "\u2600", "\u263e",
                 "\u2638", "\u273f", "\u2766", "\u2699", "\u262f", "\u266a"];
    /* Each game's verbs (docs/rules/): buttons that write the move's
     * first word; the recorder judges whatever is written. */
    var VERBS = {
        tsukurutenten: ["draw", "discard", "take", "finish", "pass", "deal"],
        chan: ["discard", "take", "draw", "pass", "chiu", "declare", "win"],
        chains: ["place", "pass"]
    };

    /* YAHchain: a card is a type and a suit, two taps.  The other games:
     * a verb, a player (the one whose turn it is, unless another is
     * tapped) and cards from that player's hand, which a scorer sees; the
     * words fill the text field, and Check judges them. */
    function pad() {
        var p = $("pad");
        if (game !== "yahchain")
            return composer(p);
        if (p.dataset.game === game)
            return;
        p.dataset.game = game;
        p.innerHTML = TYPES.map(function (t) {
            return '<button type="button" class="big type" data-type="' + t +
                '">' + t + "</button>";
        }).join("") + SUITS.map(function (s) {
            return '<button type="button" class="big suit" data-suit="' + s +
                '" style="color:' + ARB.suitColour(s) + '">' + s +
                "</button>";
        }).join("");
        p.onclick = function (e) {
            var b = e.target.closest("button");
            if (!b)
                return;
            if (b.dataset.type) {
                unjudge();
                typeSel = b.dataset.type;
                p.querySelectorAll(".type").forEach(function (x) {
                    x.classList.toggle("on", x === b);
                });
                verdict("Card " + esc(typeSel) + "\u2026 now its suit", "");
            } else if (b.dataset.suit && typeSel) {
                var card = typeSel + b.dataset.suit;
                typeSel = null;
                p.querySelectorAll(".type").forEach(function (x) {
                    x.classList.remove("on");
                });
                $("text").value = card;
                judge(card);
            }
        };
    }

    var words = { verb: "", player: "", args: [] };
    /* The cards a seat holds, from the state with every hand (handRep);
     * of a Chains player with two hands (1 against 1), the hand on turn
     * only when it is theirs (until 2026-12-06 both, and half the buttons
     * were refused). */
    function hands(st, player) {
        var h = [];
        (st.players || []).concat(st.hands || []).forEach(function (x) {
            var c = x.hand_cards || x.concealed;
            if ((x.name || x.player) !== player || !Array.isArray(c))
                return;
            if (st.turn_hand && st.turn === player && x.hand !== undefined
                && x.hand !== st.turn_hand)
                return;
            h = h.concat(c);
        });
        return h;
    }
    var CELL = /^r(-?\d+)c(-?\d+)$/;
    /* Chains: the cells a card may go to as far as the page can tell (an
     * empty cell beside a placed card, within the rectangle's reach; the
     * first card at r0c0), row by row; the recorder judges the rest. */
    function cells(st) {
        var grid = st.grid || [], tl = CELL.exec(st.top_left || ""), out = [];
        var rows = grid.length, cols = rows ? grid[0].split(" ").length : 0;
        if (!tl || !rows)
            return ["r0c0"];
        var r0 = parseInt(tl[1], 10), c0 = parseInt(tl[2], 10);
        function at(r, c) {
            var line = grid[r - r0];
            var v = line !== undefined ? line.split(" ")[c - c0] : undefined;
            return v !== undefined && v !== "--" && v !== "";
        }
        for (var r = r0 - (st.rows_fixed ? 0 : 1);
             r <= r0 + rows - (st.rows_fixed ? 1 : 0); r++)
            for (var c = c0 - (st.cols_fixed ? 0 : 1);
                 c <= c0 + cols - (st.cols_fixed ? 1 : 0); c++)
                if (!at(r, c) && (at(r - 1, c) || at(r + 1, c) ||
                                  at(r, c - 1) || at(r, c + 1)))
                    out.push("r" + r + "c" + c);
        return out;
    }
    /* The live stream's state has hand counts only; the hands come from
     * /state?hands=1 (a scorer sees them), asked again after each move. */
    var handRep = null, handSeq = -1;
    function fetchHands() {
        var seq = rep.seq;
        if (handSeq === seq)
            return;
        handSeq = seq;
        api("GET", base + "/state?hands=1&at=" + seq).then(function (r) {
            if (r.status === 200 && rep.seq === seq) {
                handRep = r.body;
                composer($("pad"));
            }
        }).catch(function () { handSeq = -1; });
    }
    function composer(p) {
        var st = (handRep && handRep.seq === rep.seq ? handRep : rep).state
                 || {}, names = [];
        fetchHands();
        (st.players || []).concat(st.hands || []).forEach(function (x) {
            var n = x.name || x.player;
            if (n && names.indexOf(n) < 0)
                names.push(n);
        });
        if (!words.player || names.indexOf(words.player) < 0)
            words.player = st.turn || names[0] || "";
        function row(cls, list, on) {
            return list.map(function (v) {
                return '<button type="button" class="big ' + cls + (v === on
                    ? " on" : "") + '" data-' + cls + '="' + esc(v) + '">' +
                    esc(v) + "</button>";
            }).join("");
        }
        p.dataset.game = game;
        p.className = "compose";
        p.innerHTML = row("verb", VERBS[game] || [], words.verb) +
            row("player", names, words.player) +
            row("card", hands(st, words.player), "") +
            (game === "chains" ? row("cell", cells(st), "") : "") +
            '<button type="button" class="big clear">clear</button>';
        p.onclick = function (e) {
            var b = e.target.closest("button");
            if (!b)
                return;
            if (b.dataset.verb)
                words.verb = b.dataset.verb;
            else if (b.dataset.player) {
                words.player = b.dataset.player;
                words.args = [];
            } else if (b.dataset.card)
                words.args.push(b.dataset.card);
            else if (b.dataset.cell) {
                /* one cell, after the card: a second tap moves it */
                words.args = words.args.filter(function (a) {
                    return !CELL.test(a);
                }).concat([b.dataset.cell]);
            } else
                words = { verb: "", player: words.player, args: [] };
            $("text").value = [words.verb, words.player].concat(words.args)
                .join(" ").trim();
            unjudge();
            composer(p);
        };
    }

    /* ---- judging and recording ----------------------------------------- */

    /* The field changed: an earlier verdict is not about it any more. */
    function unjudge() {
        judgeNo++;
        if (judged || body.dataset.verdict || checking)
            verdict("", "");
        checking = false;
        judged = null;
        drawPending();
    }
    function judge(text) {
        var no = ++judgeNo;
        judged = null;
        drawPending();
        if (queue.length) {
            verdict("Wait: the last event is not acknowledged yet.",
                    "refused");
            return;
        }
        verdict("Checking " + esc(text) + "\u2026", "");
        checking = true;
        api("POST", base + "/judge", { text: text }).then(function (r) {
            var v = r.body.verdict;
            if (no !== judgeNo || $("text").value.trim() !== text)
                return;         /* a later check, or the move changed */
            checking = false;
            if (r.status !== 200)
                return refusal(r.body.rule, r.body.error);
            if (!v.legal)
                return refusal(v.rule, v.message);
            judged = { move: r.body.move, line: r.body.line, at: r.body.at,
                       text: text };
            verdict("Legal: " + esc(r.body.line) + (v.records.length
                    ? "<br>" + recordsText(v.records) : ""), "legal");
            drawPending();
        }).catch(function () {
            if (no === judgeNo)
                verdict("No connection to the recorder: not checked. Try " +
                        "again.", "refused");
        });
    }
    function enqueue(route, data, line) {
        if (route !== "move")
            unjudge();          /* checked on a state about to change */
        data.cid = newCid();
        queue.push({ cid: data.cid, route: route, data: data, line: line,
                     tries: 0 });
        saveQueue();
        drawPending();
        send();
    }
    function record() {
        var j = judged, m;
        if (!j || queue.length)
            return;
        judged = null;
        if (j.text !== $("text").value.trim()) {
            drawPending();
            return verdict("The move was changed after its check: check " +
                           "it again.", "refused");
        }
        words = { verb: "", player: "", args: [] };
        m = j.move;
        enqueue("move", { player: m.player, verb: m.verb, args: m.args,
                          expect: j.at }, j.line);
        $("text").value = "";
    }
    /* Undo asks to be confirmed, naming the move, and waits for the
     * queue as Record does: until 2026-12-06 two quick taps undid the last
     * two moves (the second, sent once the first was answered, found the
     * move before it). */
    function disarm() {
        undoArmed = -1;
        clearTimeout(undoTimer);
        $("undo").textContent = "Undo my last";
        delete $("undo").dataset.armed;
    }
    function undo() {
        var last = mine[mine.length - 1];
        if (queue.length) {
            disarm();
            return verdict("Wait: the last event is not acknowledged yet.",
                           "refused");
        }
        if (!last) {
            disarm();
            return verdict("Nothing to undo: this page has recorded no " +
                           "move that still stands.", "refused");
        }
        if (last.requested) {
            disarm();
            return verdict("The undo of " + last.seq + " was already " +
                           "requested (seq " + last.requested + "): an " +
                           "arbiter rules on it.", "refused");
        }
        if (undoArmed === last.seq
            && Date.now() - undoArmedAt < UNDO_READ_MS)
            return;             /* a tap too quick to have read it */
        if (undoArmed !== last.seq) {
            disarm();
            undoArmed = last.seq;
            undoArmedAt = Date.now();
            $("undo").textContent = "Tap again to undo " + last.seq + ". " +
                brief(last.line);
            $("undo").dataset.armed = String(last.seq);
            undoTimer = setTimeout(disarm, 5000);
            return;
        }
        disarm();
        enqueue("undo", { seq: last.seq }, "undo of " + last.seq + ". " +
                last.line);
    }

    /* Sends the queue's head until it is answered; a network failure, a
     * recorder that cannot answer now (5xx) or a proxy that will not pass
     * it now (408, 429) keeps it, to be sent again with the same client
     * event id. */
    function send() {
        var q = queue[0];
        if (sending || !q || !ARB.token())
            return;
        sending = true;
        q.tries++;
        saveQueue();
        drawPending();
        api("POST", base + "/" + q.route, q.data).then(function (r) {
            sending = false;
            /* A token that may not record here (a reader's typed after a
             * reload changed the scorer's) keeps the event, as a refused
             * token does (until 2026-12-06 it was dropped). */
            if (r.status === 401 || r.status === 403)
                return login("The recorder refused the token: " +
                             r.body.error + " (" + brief(q.line) + " waits)");
            /* An answer cut short on its way (a 2xx that is not JSON):
             * the event may be recorded, its seq unknown; sent again
             * with its id, which gets that seq (until 2026-12-07 it
             * was told recorded "(seq undefined)"). */
            if (r.damaged)
                return retry(r.body.error);
            /* Not now, from the recorder (5xx) or a proxy before it (408,
             * 429): sent again (until 2026-12-06 a 408 or 429 dropped
             * the event as refused). */
            if (r.status >= 500 || r.status === 408 || r.status === 429)
                return retry(r.body && r.body.error);
            retryMs = 0;
            gone["c" + q.cid] = 1;     /* before the save: not kept */
            queue.shift();
            saveQueue();
            disarm();           /* the moves it named may have changed */
            if (r.status === 200) {
                body.dataset.acked = String(r.body.seq);
                body.dataset.dup = r.body.duplicate ? "1" : "0";
                if (q.route === "move")
                    mine.push({ seq: r.body.seq, line: q.line });
                /* A scorer's undo is a request (a note): the move stands
                 * until an arbiter rules, and is not asked for again
                 * (until 2026-12-06 the page forgot it, as if undone). */
                if (q.route === "undo" && r.body.kind === "note")
                    mine.forEach(function (x) {
                        if (x.seq === q.data.seq)
                            x.requested = r.body.seq;
                    });
                else if (q.route === "undo") {
                    gone["s" + q.data.seq] = 1;
                    mine = mine.filter(function (x) {
                        return x.seq !== q.data.seq;
                    });
                }
                saveMine();
                verdict(q.route === "undo" && r.body.kind === "note"
                        ? "Requested: " + esc(brief(q.line)) + " (seq " +
                          r.body.seq + "): an arbiter rules on it; the " +
                          "move stands until then."
                        : "Recorded: " + esc(brief(q.line)) + " (seq " +
                          r.body.seq + (r.body.duplicate
                                        ? ", already recorded" : "") + ")",
                        "legal");
                if (q.route === "note" && $("note").value.trim() ===
                    q.data.text)
                    $("note").value = "";
            } else if (r.status === 409 && r.body.where === "expect") {
                verdict("Not recorded: " + esc(brief(q.line)) + ": another " +
                        "scorer recorded first (" + esc(r.body.error) +
                        "). Check the move again.", "refused");
            } else {
                refusal(r.body.rule, "not recorded: " + brief(q.line) + ": " +
                        (r.body.error || "refused (" + r.status + ")"));
            }
            drawPending();
            send();
        }).catch(function () {
            sending = false;
            retry();
        });
    }
    /* why: the recorder's own words when it answered (storage full,
     * shutting down, busy), shown beside the queued event. */
    function retry(why) {
        retryMs = Math.min(retryMs ? retryMs * 2 : 1000, 5000);
        drawPending();
        if (why && queue.length)
            verdict("Waiting for the recorder: " + esc(why) + ". " +
                    esc(brief(queue[0].line)) + " stays queued and is sent " +
                    "again.", "refused");
        setTimeout(send, retryMs);
    }

    /* ---- the live stream (net.js) ------------------------------------ */

    var streaming = false;      /* a stream is open or being retried */
    function live() {
        streaming = ARB.follow(base + "/live", {
            open: loadEvents,
            reset: loadEvents,
            state: function (data) {
                rep = data;
                draw();
                body.dataset.ready = "1";
            },
            ack: function (data) {
                if (!events.length || events[events.length - 1].seq <
                    data.seq)
                    events.push(data);
                drawMoves();
            },
            /* No such match, or the token was withdrawn: the recorder
             * said why, and retrying would not help. */
            stop: function (status, j) {
                streaming = false;
                if (status !== 401)
                    verdict(esc(j.error), "refused");
            }
        });
        if (!streaming)
            verdict("This browser cannot follow the match live.", "refused");
    }
    function loadEvents() {
        var all = [];
        function page(from) {
            return api("GET", base + "/events?from=" + from).then(function (r) {
                /* a page that failed leaves the list as it was (until
                 * 2026-12-07 the pages before it replaced it) */
                if (r.status !== 200 || r.damaged)
                    throw new Error(String(r.status));
                if (!r.body.length)
                    return;
                all = all.concat(r.body);
                return page(r.body[r.body.length - 1].seq + 1);
            });
        }
        /* An ack that came while the pages were read and that they do
         * not hold (its event committed after the last page was
         * answered) stays after them (until 2026-12-07 the list read
         * replaced it, and its line was missing until the next ack). */
        return page(0).then(function () {
            var end = all.length ? all[all.length - 1].seq : -1;
            events = all.concat(events.filter(function (e) {
                return e.seq > end;
            }));
            drawMoves();
        }).catch(function () {});
    }

    /* ---- start ----------------------------------------------------------- */

    /* net.js's answer to a 401 is this page's own form. */
    ARB.askToken = login;
    function login(why) {
        $("login").hidden = false;
        $("main").hidden = true;
        $("loginerr").textContent = why || "";
        body.dataset.ready = "login";
    }
    function start() {
        $("login").hidden = true;
        $("main").hidden = false;
        if (!streaming)
            live();
        drawPending();
        send();
    }
    $("title").textContent = "Score " + match;
    $("login").addEventListener("submit", function (e) {
        e.preventDefault();
        var t = $("token").value.trim();
        ARB.setToken(t);
        /* Kept only once the recorder has taken it. */
        api("GET", base + "/state").then(function (r) {
            if (r.status !== 200) {
                ARB.setToken(null);
                return login(r.body.error);
            }
            start();
        }).catch(function () {
            ARB.setToken(null);
            login("No connection to the recorder.");
        });
    });
    $("typed").addEventListener("submit", function (e) {
        e.preventDefault();
        if ($("text").value.trim())
            judge($("text").value.trim());
    });
    $("noteform").addEventListener("submit", function (e) {
        e.preventDefault();
        var t = $("note").value.trim();
        /* The text stays in its field until the note is recorded: a
         * refused note is not typed again (until 2026-12-06 it was
         * emptied at once, and one sent while a move waited ignored). */
        if (t && queue.length)
            verdict("Wait: the last event is not acknowledged yet.",
                    "refused");
        else if (t)
            enqueue("note", { text: t }, "note " + t);
    });
    $("text").addEventListener("input", unjudge);
    $("record").addEventListener("click", record);
    $("undo").addEventListener("click", undo);
    if (ARB.token())
        start();
    else
        login();
})();
