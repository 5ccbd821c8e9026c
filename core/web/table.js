/*
 * table.js - the drawings of a match, shared by the live page, the HTML
 * report and any other page (tournament views): pure functions from a
 * state report (arb_report_json / arb_view_report: records, totals, seq,
 * closed, finished, state) to SVG or HTML text.  Nothing here reads the
 * network or the page, so every page draws a table the same way.
 *
 *   ARB.game(report, hint)      the game, from a hint or the state's shape
 *   ARB.table(report, game)     an <svg> picture of the table
 *   ARB.results(report, game, claim)  the records (§34.13 for YAHchain)
 *   ARB.totals(report)          the totals
 *   ARB.verdicts(report)        the claim verification status line
 *   ARB.rulings(report)         the arbiter's rulings, "" when none
 *
 * A hand is a count in every report and its chips or cards are in
 * `hand_cards` only for a viewer allowed to see them (docs/VIEWS.md: a
 * player's own seat): the drawings show that list face up (class "own"),
 * else the count as face-down backs.
 */
(function (root) {
    "use strict";
    var ARB = root.ARB = root.ARB || {};

    function esc(s) {
        return String(s === undefined || s === null ? "" : s)
            .replace(/&/g, "&amp;").replace(/</g, "&lt;")
            .replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    }
    ARB.esc = esc;

    /* Suit colours: the French suits and the extra suits of the decks. */
    var SUIT = {
        "\u2660": "#1d1d1b", "\u2663": "#1b6e2a", "\u2665": "#c62828",
        "\u2666": "#1565c0", "\u2600": "#c78a00", "\u263e": "#5e35b1",
        "\u2638": "#00838f", "\u273f": "#d81b60", "\u2766": "#6d4c41",
        "\u2699": "#546e7a", "\u262f": "#37474f"
    };
    function suitColour(card) {
        var s = String(card);
        return SUIT[s.charAt(s.length - 1)] || "#1d1d1b";
    }
    ARB.suitColour = suitColour;

    function text(x, y, s, size, fill, anchor, weight) {
        return '<text x="' + x + '" y="' + y + '" font-size="' + size +
            '" fill="' + (fill || "#fff") + '" text-anchor="' +
            (anchor || "start") + '"' + (weight ? ' font-weight="bold"' : "") +
            ' font-family="DejaVu Sans, sans-serif">' + esc(s) + '</text>';
    }
    function rect(x, y, w, h, fill, stroke, sw, r) {
        return '<rect x="' + x + '" y="' + y + '" width="' + w + '" height="' +
            h + '" rx="' + (r === undefined ? 4 : r) + '" fill="' + fill + '"' +
            (stroke ? ' stroke="' + stroke + '" stroke-width="' + (sw || 1) +
             '"' : "") + '/>';
    }
    /* One face-up card or chip, label in its colour. */
    function face(x, y, w, h, label, colour, cls) {
        return '<g class="' + (cls || "card") + '" data-card="' + esc(label) +
            '">' + rect(x, y, w, h, "#fffdf7", "#333", 1) +
            text(x + w / 2, y + h * 0.62, label, Math.round(Math.min(h * 0.36,
                 w * 1.3 / Math.max(String(label).length, 2))), colour,
                 "middle", true) + '</g>';
    }
    function back(x, y, w, h) {
        return rect(x, y, w, h, "#8d2b2b", "#f3e2b3", 1);
    }
    /* n face-down backs, fanned so that many still fit in width w. */
    function backs(x, y, n, cw, ch, w) {
        var out = "", step = n > 1 ? Math.min(cw + 2, (w - cw) / (n - 1)) : 0;
        for (var i = 0; i < n; i++)
            out += back(x + i * step, y, cw, ch);
        return out;
    }
    function svg(w, h, body, label) {
        return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + w +
            ' ' + h + '" role="img" aria-label="' + esc(label) + '">' + body +
            '</svg>';
    }
    /* The parts of a heading line that are there, SVG collapsing spaces. */
    function line(parts) {
        return parts.filter(function (p) { return p; }).join(" \u00b7 ");
    }
    function count(v) {
        return Array.isArray(v) ? v.length : (typeof v === "number" ? v : 0);
    }

    ARB.game = function (rep, hint) {
        var s = rep && rep.state;
        if (hint)
            return hint;
        if (!s)
            return "";
        if (s.sotas)
            return "yahchain";
        if (s.grid || s.rectangle)
            return "chains";
        if ("rounds_played" in s || "discard" in s)
            return "tsukurutenten";
        if ("stock_left" in s)
            return "chan";
        return "";
    };

    /* ---- YAHchain: the 12 Sotas ----------------------------------------- */

    /* Category names by code family (the table of core/rules/yahchain_bc.c,
     * §34.6-34.8); the family of an n-card kind is named by n. */
    var FAMILY = { "001": "Ladder", "003": "Single line", "004": "Mirror",
                   "005": "Vertex" };
    var KIND = { 3: "Triple", 4: "Four", 5: "Five" };
    function category(rec) {
        var f = String(rec.code || "").split("-")[1];
        return f === "002" ? (KIND[rec.cards] || "") : (FAMILY[f] || "");
    }
    ARB.category = category;

    function yahchain(rep) {
        var s = rep.state, recs = {}, out = "", i, j;
        (rep.records || []).forEach(function (r) { recs[r.sota] = r; });
        var bw = 240, bh = 150, gap = 10, top = 44;
        out += text(10, 30, line(["Turn: " + (s.turn || "\u2014"),
                    "Cycle " + s.cycle + "/" + s.cycles, "Cards left " +
                    s.cards_left, s.end ? "End: " + s.end : ""]), 22);
        for (i = 0; i < (s.sotas || []).length; i++) {
            var so = s.sotas[i], x = gap / 2 + (i % 4) * (bw + gap),
                y = top + Math.floor(i / 4) * (bh + gap), r = recs[so.sota],
                active = so.sota === s.active_sota && !rep.finished;
            out += '<g class="sota" data-sota="' + so.sota + '" data-state="' +
                esc(so.state) + '"' + (active ? ' data-active="1"' : "") + '>';
            out += rect(x, y, bw, bh, active ? "#1f6b45" : "#0b3d26",
                        active ? "#ffd54f" : "#6fae8c", active ? 4 : 1, 8);
            out += text(x + 8, y + 22, "Sota " + so.sota, 18, "#fff", "start",
                        true);
            out += text(x + bw - 8, y + 22, so.owner, 16, "#d7f5e3", "end");
            var cards = so.cards || [], cw = 40, ch = 56;
            for (j = 0; j < cards.length; j++)
                out += face(x + 8 + j * (cw + 4), y + 34, cw, ch, cards[j],
                            suitColour(cards[j]));
            if (r) {
                out += text(x + 8, y + 112, r.code + " " + category(r), 15,
                            "#ffe082");
                out += text(x + 8, y + 136, r.face_sum + " + " + r.bonus +
                            " = " + r.game_points, 15, "#fff");
                if (r.status)
                    out += text(x + bw - 8, y + 136, r.status, 13,
                                r.status === "disputed" ? "#ff8a80"
                                : "#c8e6c9", "end");
            } else {
                out += text(x + 8, y + 124, active ? "active" : so.state, 15,
                            active ? "#ffd54f" : "#9ccc9c");
            }
            out += '</g>';
        }
        var rows = Math.ceil((s.sotas || []).length / 4);
        return svg(1000, top + rows * (bh + gap), out, "YAHchain table");
    }

    /* ---- Chains: the grid and each team's chains ------------------------ */

    function cellOf(name) {
        var m = /^r(-?\d+)c(-?\d+)$/.exec(name || "");
        return m ? [parseInt(m[1], 10), parseInt(m[2], 10)] : null;
    }
    function chains(rep) {
        var s = rep.state, grid = s.grid || [], out = "", teams = [];
        var tl = cellOf(s.top_left) || [0, 0], rows = grid.length;
        var cols = rows ? grid[0].split(" ").length : 0;
        var cw = Math.min(90, Math.floor(960 / Math.max(cols, 1))),
            ch = Math.round(cw * 1.3), x0 = (1000 - cols * cw) / 2, y0 = 70;
        var colours = ["#4fc3f7", "#ff8a65", "#aed581", "#ce93d8"];
        function team(t) {
            var i = teams.indexOf(t);
            if (i < 0) { teams.push(t); i = teams.length - 1; }
            return colours[i % colours.length];
        }
        (s.hands || []).forEach(function (h) { team(h.team); });
        out += text(10, 30, line(["Turn: " + (s.turn || "\u2014") +
                    (s.turn_hand ? " (hand " + s.turn_hand + ")" : ""),
                    s.rectangle, s.scoring]), 22);
        /* Each row and column named as a move names its cell (counted
         * from the first card, r0c0, whose corner is marked), so that a
         * scorer reads the cell off the table (until 2026-12-06 the
         * picture had no coordinates). */
        for (var k = 0; k < cols; k++)
            out += '<g class="coord">' + text(x0 + k * cw + cw / 2, y0 - 8,
                "c" + (tl[1] + k), 16, "#cfe8d8", "middle") + '</g>';
        grid.forEach(function (line, r) {
            out += '<g class="coord">' + text(x0 - 8, y0 + r * ch + ch / 2 + 6,
                "r" + (tl[0] + r), 16, "#cfe8d8", "end") + '</g>';
            line.split(" ").forEach(function (c, k) {
                var x = x0 + k * cw, y = y0 + r * ch;
                out += c === "--" || c === ""
                    ? rect(x + 2, y + 2, cw - 4, ch - 4, "none", "#2e7d57", 1)
                    : face(x + 2, y + 2, cw - 4, ch - 4, c, suitColour(c));
                if (tl[0] + r === 0 && tl[1] + k === 0)
                    out += '<circle class="origin" cx="' + (x + 9) +
                        '" cy="' + (y + 9) + '" r="5" fill="#ffd54f"/>';
            });
        });
        (s.table || []).forEach(function (t) {
            var p = cellOf(t.cell);
            if (p && t.seq === rep.seq)
                out += '<rect class="last" x="' + (x0 + (p[1] - tl[1]) * cw +
                    1) + '" y="' + (y0 + (p[0] - tl[0]) * ch + 1) +
                    '" width="' + (cw - 2) + '" height="' + (ch - 2) +
                    '" rx="5" fill="none" stroke="#ffd54f" stroke-width="4"/>';
        });
        (rep.records || []).forEach(function (rec) {
            var cells = (rec.cells || []).map(cellOf).filter(Boolean);
            var row = cells.every(function (p) {
                    return p[0] === cells[0][0];
                }),
                col = !row && cells.every(function (p) {
                    return p[1] === cells[0][1];
                });
            /* Along the cells' lower (a row) or right (a column) edge, so
             * that the cards stay legible. */
            var pts = cells.map(function (p) {
                return (x0 + (p[1] - tl[1]) * cw + cw * (col ? 0.85 : 0.5)) +
                    "," + (y0 + (p[0] - tl[0]) * ch + ch * (row ? 0.85 : 0.5));
            });
            if (pts.length > 1)
                out += '<polyline class="chain" data-team="' + esc(rec.team) +
                    '" points="' + pts.join(" ") + '" fill="none" stroke="' +
                    team(rec.team) + '" stroke-width="8" stroke-opacity=".75"' +
                    ' stroke-linecap="round"/>';
        });
        var y = y0 + rows * ch + 30, totals = rep.totals || {};
        teams.forEach(function (t, i) {
            var hands = (s.hands || []).filter(function (h) {
                return h.team === t;
            }).map(function (h) {
                return h.player + " " + h.hand + ": " + (Array.isArray(
                    h.hand_cards) ? h.hand_cards.join(" ") : h.cards);
            }).join(", ");
            out += rect(10, y + i * 30 - 16, 18, 18, team(t), null, 0, 3);
            out += text(36, y + i * 30, t + "  " + (totals[t] || 0) +
                        " pts   hands left: " + hands, 18);
        });
        return svg(1000, y + teams.length * 30, out, "Chains table");
    }

    /* ---- Tsukurutenten: open sets, the waiting discard, hands ----------- */

    var CHIP = { B: "#1565c0", R: "#c62828", P: "#6a1b9a" };
    function chipColour(c) { return CHIP[String(c).charAt(0)] || "#1d1d1b"; }
    function chips(x, y, list, cw, ch) {
        var out = "", k = 0;
        list.forEach(function (set) {
            String(set).split("+").forEach(function (c) {
                out += face(x + k * (cw + 2), y, cw, ch, c, chipColour(c),
                            "chip");
                k++;
            });
            k += 0.5;
        });
        return { svg: out, w: k * (cw + 2) };
    }
    function tsukurutenten(rep) {
        var s = rep.state, out = "", y = 44, players = s.players || [];
        out += text(10, 30, line(["Round " + s.round, "Dealer " + s.dealer,
                    "Turn: " + (s.turn || "\u2014"), "Stock " + s.stock,
                    s.phase]), 22);
        players.forEach(function (p) {
            var turn = p.name === s.turn;
            out += '<g class="seat" data-player="' + esc(p.name) + '">';
            out += rect(6, y, 988, 150, turn ? "#1f6b45" : "#0b3d26",
                        turn ? "#ffd54f" : "#6fae8c", turn ? 3 : 1, 8);
            out += text(16, y + 26, p.name + "   " + p.points + " pts", 20,
                        "#fff", "start", true);
            out += text(984, y + 26, "hand " + count(p.hand), 16, "#d7f5e3",
                        "end");
            if (Array.isArray(p.hand_cards))
                out += '<g class="own">' +
                    chips(16, y + 38, p.hand_cards, 34, 46).svg + "</g>";
            else
                out += backs(16, y + 38, count(p.hand), 30, 46, 440);
            var o = chips(500, y + 38, p.open_sets || [], 34, 46);
            out += text(500, y + 30, "open sets", 13, "#9ccc9c");
            out += o.svg;
            var d = chips(16, y + 104, (p.discards || []).slice(-20), 24,
                          34);
            out += d.svg + '</g>';
            y += 160;
        });
        if (s.discard && s.discard.chip) {
            out += '<g class="waiting">' +
                text(16, y + 24, "Waiting discard (by " + s.discard.by + ")",
                     18, "#ffe082") +
                face(300, y + 2, 44, 60, s.discard.chip,
                     chipColour(s.discard.chip), "chip") + '</g>';
            y += 70;
        }
        if (s.finished)
            out += text(16, y + 24, "Game over: " + (s.winners || [])
                        .join(", "), 20, "#ffe082", "start", true);
        return svg(1000, y + 40, out, "Tsukurutenten table");
    }

    /* ---- Chắn: gates, captured pairs, stock, claims --------------------- */

    var CHAN = { V: "#1d1d1b", S: "#c62828", W: "#1565c0", C: "#b26a00" };
    function chanColour(c) {
        var s = String(c);
        return CHAN[s.charAt(s.length - 1)] || "#1d1d1b";
    }
    function cards(x, y, list, cw, ch, colour, cls) {
        var out = "", k = 0;
        list.forEach(function (item) {
            String(item).split("+").forEach(function (c) {
                out += face(x + k * (cw + 2), y, cw, ch, c, colour(c), cls);
                k++;
            });
            k += 0.4;
        });
        return out;
    }
    function chan(rep) {
        var s = rep.state, out = "", y = 44, t = s.table;
        out += text(10, 30, line(["Dealer " + s.dealer, "Turn: " +
                    (s.turn || "\u2014"), "Stock " + s.stock_left, s.phase]),
                    22);
        (s.players || []).forEach(function (p) {
            var turn = p.name === s.turn, gate = t && t.gate === p.name;
            out += '<g class="seat" data-player="' + esc(p.name) + '">';
            out += rect(6, y, 988, 136, turn ? "#1f6b45" : "#0b3d26",
                        gate ? "#ffd54f" : "#6fae8c", gate ? 4 : 1, 8);
            out += text(16, y + 24, p.name + (p.dead ? "  (dead hand)" : ""),
                        20, p.dead ? "#ff8a80" : "#fff", "start", true);
            out += text(984, y + 24, "hand " + count(p.hand), 16, "#d7f5e3",
                        "end");
            if (Array.isArray(p.hand_cards))
                out += cards(16, y + 34, p.hand_cards, 22, 42, chanColour,
                             "own");
            else
                out += backs(16, y + 34, count(p.hand), 26, 42, 400);
            out += text(500, y + 48, "captured", 13, "#9ccc9c");
            out += cards(570, y + 30, p.exposed || [], 30, 42, chanColour,
                         "pair");
            out += text(16, y + 100, "gate", 13, "#9ccc9c");
            out += cards(60, y + 84, (p.discards || []).concat(p.flipped ||
                         []).slice(-24), 26, 36, chanColour);
            out += '</g>';
            y += 146;
        });
        if (t && t.card) {
            out += '<g class="waiting">' + text(16, y + 26, "On the table: " +
                    (t.origin === "discard" ? "discarded" : "flipped") +
                    " by " + t.from + ", facing " + t.gate +
                    ((t.passed || []).length ? ", passed by " +
                     t.passed.join(", ") : ""), 18, "#ffe082") +
                face(860, y + 2, 44, 60, t.card, chanColour(t.card)) + '</g>';
            y += 70;
        }
        (s.declared || []).forEach(function (d) {
            out += text(16, y + 22, "Claim: " + (typeof d === "string" ? d
                        : [d.player, d.claim || d.kind, d.card].filter(
                            Boolean).join(" ")), 18, "#ffcc80");
            y += 28;
        });
        if (s.result)
            out += text(16, y + 24, "Won by " + s.result.winner + " (" +
                        s.result.won + "), " + s.result.score, 20, "#ffe082",
                        "start", true);
        return svg(1000, y + 40, out, "Ch\u1eafn table");
    }

    ARB.table = function (rep, game) {
        if (!rep || !rep.state)
            return "";
        switch (ARB.game(rep, game)) {
        case "yahchain": return yahchain(rep);
        case "chains": return chains(rep);
        case "tsukurutenten": return tsukurutenten(rep);
        case "chan": return chan(rep);
        }
        return "<pre>" + esc(JSON.stringify(rep.state, null, 1)) + "</pre>";
    };

    /* ---- results, totals, verdicts -------------------------------------- */

    var SKIP = { match_id: 1, edition: 1 };
    function value(v) {
        return Array.isArray(v) ? v.join(" ") : v;
    }
    /* claim: {differences:[...]} as `arbiter diff --json`; a field
     * difference names the recorded record's index and the field. */
    ARB.results = function (rep, game, claim) {
        var recs = rep.records || [], cols = [], bad = {};
        if (!recs.length)
            return '<p class="mute">No records yet.</p>';
        recs.forEach(function (r) {
            Object.keys(r).forEach(function (k) {
                if (!SKIP[k] && cols.indexOf(k) < 0)
                    cols.push(k);
            });
        });
        if (game === "yahchain" && cols.indexOf("category") < 0)
            cols.splice(cols.indexOf("code") + 1, 0, "category");
        ((claim && claim.differences) || []).forEach(function (d) {
            if (d.record !== undefined && d.field)
                bad[d.record + "/" + d.field] = d;
            else if (d.record !== undefined)
                bad[d.record + "/*"] = d;
        });
        var h = '<div class="scroll"><table class="grid results"><tr><th>#' +
            '</th>' + cols.map(function (c) {
                return "<th>" + esc(c) + "</th>";
            }).join("") + "</tr>";
        recs.forEach(function (r, i) {
            var st = r.status || "";
            h += '<tr class="' + esc(st) +
                (bad[(i + 1) + "/*"] ? " diff" : "") +
                '" data-record="' + (i + 1) + '"><td>' + (i + 1) + "</td>";
            cols.forEach(function (c) {
                var v = c === "category" && !("category" in r) ? category(r)
                    : value(r[c]), d = bad[(i + 1) + "/" + c];
                h += "<td" + (d ? ' class="diff" title="claimed ' +
                    esc(JSON.stringify(d.claimed)) + '"' : c === "status"
                    ? ' class="st-' + esc(v) + '"' : "") + ">" + esc(v) +
                    (d ? ' <span class="diff">claimed ' +
                     esc(value(d.claimed)) + "</span>" : "") + "</td>";
            });
            h += "</tr>";
        });
        return h + "</table></div>";
    };

    ARB.totals = function (rep, claim) {
        var t = rep.totals || {}, bad = {};
        ((claim && claim.differences) || []).forEach(function (d) {
            if (d.type === "total")
                bad[d.player] = d;
        });
        /* Without a claim file given, the claim on record (the report's
         * `claim`): a total it states otherwise is marked all the same. */
        if (!claim && rep.claim)
            (rep.claim.totals_disputed || []).forEach(function (d) {
                bad[d.player] = { claimed: d.claimed === null ? undefined
                                                                : d.claimed };
            });
        return '<table class="grid totals">' + Object.keys(t).map(function (k) {
            var d = bad[k];
            return '<tr data-player="' + esc(k) + '"><th>' + esc(k) +
                '</th><td class="points' + (d ? " diff" : "") + '">' +
                esc(t[k]) + (d ? ' <span class="diff">claimed ' +
                esc(d.claimed === undefined ? "none" : d.claimed) +
                "</span>" : "") + "</td></tr>";
        }).join("") + "</table>";
    };

    /* The rulings that shaped the state (the report's `rulings`): one
     * line each, as `arbiter replay` prints them; one out of force is
     * struck through and says which ruling undid it. */
    ARB.rulings = function (rep) {
        return (rep.rulings || []).map(function (r) {
            var what = r.kind + (r.target !== undefined ? " " + r.target
                                                         : "") +
                (r.move !== undefined ? " " + r.move : "");
            return '<div class="ruling' + (r.undone_by ? " undone" : "") +
                '" data-seq="' + esc(r.seq) + '">' + esc(r.seq) + ". " +
                "<span>" + esc(what) + "</span> — " + esc(r.reason) +
                (r.undone_by ? ' <em>(undone at seq ' + esc(r.undone_by) +
                 ")</em>" : "") + "</div>";
        }).join("");
    };

    ARB.verdicts = function (rep) {
        var n = { confirmed: 0, disputed: 0, pending: 0 };
        (rep.records || []).forEach(function (r) {
            if (r.status in n)
                n[r.status]++;
        });
        var tot = rep.claim ? (rep.claim.totals_disputed || []).length : 0;
        return '<span class="st-confirmed">' + n.confirmed + ' confirmed' +
            '</span>, <span class="st-disputed">' + n.disputed +
            ' disputed</span>, <span class="st-pending">' + n.pending +
            ' pending</span>' + (rep.claim ? '; <span class="' +
            (tot ? "st-disputed" : "st-confirmed") + '" id="claim-totals">' +
            (tot ? tot + " total" + (tot === 1 ? "" : "s") + " disputed"
                 : "totals confirmed") + "</span> (claim at seq " +
            esc(rep.claim.seq) + ")" : "");
    };
})(this);
