#!/bin/sh
# The manual pages and the bash completion kept true: every command
# `arbiter --help` lists and every option each command's --help lists is
# in arbiter(1), and every option arbiter(1) gives a command is one it
# takes; every arbiterd option in arbiterd(8); every key of
# config/arbiterd.conf in arbiterd.conf(5); the pages format without
# warnings; the completion offers commands, options and the match ids of
# a running recorder (COMP_WORDS simulated in bash).
A=bin/arbiter
pass=0; fail=0
T=$(mktemp -d)
D=
cleanup() {
    [ -n "$D" ] && kill "$D" 2>/dev/null && wait "$D" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}
# The page as plain words: roff's \- is -, font changes dropped.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$1"; }
in_page() {     # in_page PAGE WORD: 1 when WORD is in the page
    plain "$1" > "$T/page"
    grep -qF -e "$2" "$T/page" && echo 1 || echo 0
}

cmds=$($A --help | awk '/^commands:/ { f = 1; next }
    f && /^  [a-z]/ { print $1; next } f && /^$/ { exit }')
check "arbiter --help lists commands" 1 "$([ "$(echo "$cmds" | wc -w)" -ge 20 ] && echo 1)"
for c in $cmds; do
    check "arbiter.1 has command $c" 1 "$(in_page docs/man/arbiter.1 "arbiter $c")"
    for o in $($A "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        check "arbiter.1 has $c $o" 1 "$(in_page docs/man/arbiter.1 "$o")"
    done
done
# and the other way: every option the page gives a command (in its .SS
# line or its paragraph) is one the command takes -- the page had
# `verify --format` and `key --pubkey`, which never existed.  Asked with
# --help after it, nothing runs: `--opt=1 --help`, or, for a flag (which
# takes no value), `--opt --help`.
takes1() {  # takes1 CMD OPT [ARGS...]: 1 when CMD does not call OPT unknown
    c=$1; o=$2; shift 2
    out=$(cd "$T" && "$OLDPWD/$A" "$c" "$@" "$o=1" --help 2>&1 >/dev/null)
    case $out in
    *"unknown option '$o=1'"*)
        out=$(cd "$T" && "$OLDPWD/$A" "$c" "$@" "$o" --help 2>&1 >/dev/null) ;;
    esac
    case $out in *"unknown option '$o"*) echo 0 ;; *) echo 1 ;; esac
}
takes() {   # takes CMD OPT (score: with any game's scorer)
    if [ "$1" = score ] && [ "$(takes1 "$1" "$2")" = 0 ]; then
        for g in chains tsukurutenten chan; do
            [ "$(takes1 score "$2" --game "$g")" = 1 ] && { echo 1; return; }
        done
        echo 0
        return
    fi
    takes1 "$1" "$2"
}
plain docs/man/arbiter.1 | awk '/^\.SS arbiter / { c = $3 } /^\.SH / { c = "" }
    c != "" { s = $0
        while (match(s, /--[a-z][a-z-]*/)) {
            print c, substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        } }' | sort -u > "$T/pairs"
check "arbiter.1 gives commands options" 1 "$([ "$(wc -l < "$T/pairs")" -ge 80 ] && echo 1)"
while read -r c o; do
    check "arbiter $c takes $o (arbiter.1)" 1 "$(takes "$c" "$o")"
done < "$T/pairs"
for o in $(bin/arbiterd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    check "arbiterd.8 has $o" 1 "$(in_page docs/man/arbiterd.8 "$o")"
done
for k in $(sed -n 's/^#\{0,1\}\([a-z_][a-z_]*\) *=.*/\1/p' config/arbiterd.conf | sort -u); do
    check "arbiterd.conf.5 has $k" 1 "$(in_page docs/man/arbiterd.conf.5 "$k")"
done
# and every key the daemon accepts is in the shipped file
for k in $(grep -o 'strcmp(k, "[a-z_]*")\|SIZE("[a-z_]*"' daemon/config.c | grep -o '"[a-z_]*"' | tr -d '"' | sort -u); do
    check "arbiterd.conf documents $k" 1 "$(grep -c "^#\{0,1\}$k *=" config/arbiterd.conf | awk '{ print ($1 > 0) }')"
done
if command -v groff > /dev/null 2>&1; then
    for p in docs/man/*.[158]; do
        check "$p formats cleanly" "" "$(groff -ww -man -Tutf8 -z "$p" 2>&1)"
    done
else
    echo "docs.sh: groff not installed: the formatting check is skipped"
fi

# ---- every option a command takes is in its --help -------------------------
# (its table, `arbiter CMD --list-options`, against what --help says: an
# option taken but never documented is one nobody can find; the connection
# options may be named as "connection options")
for c in $($A --help | awk '/^commands:/ { f = 1; next }
        f && /^  [a-z]/ { print $1; next } f && /^$/ { exit }'); do
    h=$($A "$c" --help)
    missing=
    for o in $($A "$c" --list-options); do
        [ "$o" = --help ] && continue
        printf '%s\n' "$h" | grep -q -- "$o\([^a-z-]\|\$\)" && continue
        case $o in --server|--token|--token-file)
            printf '%s\n' "$h" | grep -q "connection options" && continue ;;
        esac
        missing="$missing $o"
    done
    check "arbiter $c --help names every option it takes" "" "$missing"
done

# ---- bash completion ------------------------------------------------------
if ! command -v bash > /dev/null 2>&1; then
    echo "docs.sh: bash not installed: the completion cases are skipped"
else
    complete_words() {  # complete_words WORD...: the completions of the last
        bash -c '. config/arbiter.bash-completion
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _arbiter
            [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' arbiter "$@" | sort | tr '\n' ' '
    }
    check "complete -p" "complete -F _arbiter arbiter" \
        "$(bash -c '. config/arbiter.bash-completion; complete -p arbiter')"
    check "commands" "check claim close " "$(complete_words $A c)"
    check "restore command" "restore restore-backup " "$(complete_words $A res)"
    check "options of backup" "--compact " "$(complete_words $A backup --c)"
    # (backup's --help names restore-backup's --from in its prose)
    check "no option of another command" "" "$(complete_words $A backup --f)"
    check "the connection's options" "--server " \
        "$(complete_words $A state --se)"
    check "options of check" "--data --db " "$(complete_words $A check --d)"
    # a game's scorer has options of its own (until 2026-12-07 only
    # YAHchain's were offered)
    check "options of score --game chains" "--variant " \
        "$(complete_words $A score --game chains --v)"
    check "options of score" "--mode " "$(complete_words $A score --m)"
    check "options of score --game chan" "" \
        "$(complete_words $A score --game chan --m)"
    check "formats" "jsonl " "$(complete_words $A export --format js)"
    mkdir "$T/dirA" "$T/dirB"
    check "--data takes a directory" "$T/dirA $T/dirB " "$(complete_words $A check --data "$T/dir")"
    check "no server: no match ids, quickly" "" "$(ARBITER_SERVER=unix:$T/none complete_words $A state --match '')"

    bin/arbiterd --data "$T/data" --listen "unix:$T/s.sock" 2> "$T/daemon.log" &
    D=$!
    i=0
    while [ ! -S "$T/s.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    ARB=$(awk '$1 == "token" && $4 == "arbiter" { print $3 }' "$T/data/tokens")
    for m in R1-T7 R1-T8 R2-T1; do
        $A open --server "unix:$T/s.sock" --token "$ARB" --match $m \
            --game yahchain --players a,b --option mode=3 > /dev/null
    done
    check "match ids from the server" "R1-T7 R1-T8 " \
        "$(complete_words $A state --server "unix:$T/s.sock" --token "$ARB" --match R1)"
    check "match ids from the environment" "R1-T7 R1-T8 R2-T1 " \
        "$(ARBITER_SERVER="unix:$T/s.sock" ARBITER_TOKEN="$ARB" complete_words $A events --match '')"
fi

# The README's walk-throughs print digests, "the same on every install":
# each is the replay's of the moves they record (until 2026-12-06 the
# bundle's had drifted from what the steps give).
readme_digest() {   # readme_digest NAME MOVES...: 1 when README holds it
    name=$1; shift
    printf 'game: yahchain\nmatch: R1-T7\nplayers: alice bob\nmode: 3\n\n' \
        > "$T/walk.txt"
    n=0
    for mv in "$@"; do
        n=$((n + 1))
        printf '%d. %s\n' $n "$mv" >> "$T/walk.txt"
    done
    d=$($A replay "$T/walk.txt" | tail -1)
    check "README: $name ($d)" 1 \
        "$([ -n "$d" ] && grep -qF -e "$d" README.md && echo 1 || echo 0)"
}
readme_digest "the bundle's" "place alice 4♠" "place bob 5H" \
    "place alice 6#3" "close -- time"
readme_digest "the dispute's" "place alice 4♠" "place bob 5H" \
    "place alice 6#3" "place bob 7S" "place alice 7H" "place bob 7#3" \
    "close -- time"

echo "docs.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
