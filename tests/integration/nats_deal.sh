# A deal message the stream lost.  With a replication key, a dealt
# match's secret travels sealed on its own subject (arbiter.deal.<id>),
# outside the chain until the close reveals it; a restore, or a replica,
# needs it to judge the running match, and a restore refuses a store
# holding a running dealt match without it.  A NATS node killed before
# its flush loses acknowledged messages of any subject: until 2026-12-05
# the anti-entropy passes compared only event subjects, so a lost deal
# message stayed lost, and the recorder's lost machine could not be
# restored.  Now every pass also counts each dealt match's deal subject
# and publishes a missing deal again from the store: inside the stream's
# duplicate window too (its message id then says "duplicate"; the copy
# the stream held is looked up by its sequence, found gone, and the deal
# goes again without the id), at the pass a start makes, and with moves
# coming in.  Nothing is published twice: a deal the stream holds is
# left alone.  Then the readers: a replica and a restore meet a deal put
# back after the match's later events, and a replica without the key
# serves a running dealt match without its state (each part below says
# what it found before).  Ports: ARB_NATS_PORT_BASE (default 18300).
. tests/common.sh
. tests/cluster/nats.sh
nats_test_up nats_deal.sh 1 18300
. tests/cluster/recorders.sh

OP=${BUILD:-build}/tests/nats_op
WINDOW=15   # the stream's duplicate window, seconds
$OP "$URLS" window ARBITER $((WINDOW * 1000))
head -c 32 /dev/urandom > "$T/repl.key"; chmod 600 "$T/repl.key"

stat() { on east stats | awk -v k="replication.$1" '$1 == k { print $2 }'; }
# deals: how many deal messages the stream holds for D.1, D.2 and D.Y.
deals() {
    for m in D.1 D.2 D.Y; do
        printf '%s ' "$($OP "$URLS" count ARBITER "deal:$m")"
    done
}
# lose M: the stream's deal message of match M taken out.
lose() {
    set -- $($OP "$URLS" seqs ARBITER "deal:$1")
    $OP "$URLS" delete ARBITER "$1" > /dev/null
}
# whole: until the stream holds one deal of D.1 and D.2 again (30 s).
whole() {
    i=0
    while [ "$(deals)" != "1 1 0 " ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
}
# said TEXT: how many lines of east's log say TEXT.
said() { grep -c "$1" "$T/east.log"; }
dealt() {
    on east open --match "$1" --game tsukurutenten --players ann,bob \
        --deal "seed:$2" > /dev/null || echo "open $1 failed"
}
up() { start_replicating east D. "$T/repl.key"; }

up
play east D.Y 6                 # a yahchain match: no deal
# Nine matches in all: a pass lists every subject's count (deal subjects
# too) rather than asking for a few one by one.
for m in 1 2 3 4 5 6; do play east D.Y$m 2; done
t0=$(date +%s)                  # (the deals' window begins after it)
dealt D.1 table-1
dealt D.2 table-2
i=0
while [ "$(stat lag_events)" != 0 ] && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
done
check "each dealt match's deal in the stream, once" "1 1 0 " "$(deals)"

# Inside the duplicate window: the deal's message id is still known.
lose D.1
check "D.1's deal lost" "0 1 0 " "$(deals)"
on east replicate --check --timeout 60 > "$T/check.out" 2>&1
check "inside the window: a pass asked for republishes it" "1 1 0 " \
    "$(deals)"
check "inside the window: still inside it" 1 \
    "$(($(date +%s) - t0 < WINDOW))"
check "inside the window: counted" 1 "$(stat deals_republished)"
check "inside the window: said, naming the match" 1 \
    "$(said "match D.1: its deal message is missing from the stream")"

# At the pass a start makes, past the window.
kill "$pid_east"; wait "$pid_east" 2>/dev/null
lose D.2
while [ $(($(date +%s) - t0)) -le $WINDOW ]; do sleep 0.5; done
up
whole
check "restarted: the start's pass republishes D.2's" "1 1 0 " "$(deals)"
check "restarted: counted" 1 "$(stat deals_republished)"

# Running, moves coming in, a pass asked for.
lose D.1
play east D.Y 12 6
on east replicate --check --timeout 60 > "$T/check.out" 2>&1
check "running: a pass asked for republishes D.1's" "1 1 0 " "$(deals)"
check "running: counted" 2 "$(stat deals_republished)"
# A deal the stream holds is left alone.
on east replicate --check --timeout 60 > "$T/check.out" 2>&1
check "whole: nothing published again" "1 1 0 2" \
    "$(deals)$(stat deals_republished)"

# A dealt match with a move whose deal the stream lost: a replica that
# reads it meanwhile judges it on its chain only; the deal a pass puts
# back comes after the match's move, where a reader in stream order meets
# it too late for the open.  The replica then judges the match with it
# and stores the secret with the match's next event.  A replica (or a
# restore) that reads the healed stream asks for the deal when the move
# comes without it, and judges the match with it.  (Before 2026-12-05
# both replicas kept the match on its chain only and refused its state,
# and a restore refused it.)
HTTP_PORT=$((${ARB_NATS_PORT_BASE:-18300} + 60))
printf '[replica]\nsecret_key_file = %s\n[http]\nlisten = tcp:127.0.0.1:%s\n' \
    "$T/repl.key" "$HTTP_PORT" > "$T/rep.conf"
dealt D.3 table-3
on east move --match D.3 draw ann > /dev/null || echo "D.3: draw failed"
i=0
while [ "$(stat lag_events)" != 0 ] && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
done
lose D.3
start_replica rep "$T/rep.conf"
caught_up D.3 east events
check "replica, D.3's deal lost: judged on its chain only" "2 1" \
    "$(rstat deals) $(rstat chain_only)"
# Its live page, open meanwhile: sealed, until the deal put back unseals
# it with no move since (before 2026-12-05, only the match's next move
# did).  The pass is asked for from the page's steps.
reader=$(awk '$4 == "reader" { print $3; exit }' "$T/rep/tokens")
shown="document.getElementById('status').textContent + ' ' \
+ document.querySelectorAll('#moves [data-seq]').length + ' ' \
+ document.querySelectorAll('#table svg').length"
page=$(${BUILD:-build}/tests/page_steps \
    "http://127.0.0.1:$HTTP_PORT/m/D.3#token=$reader" \
    "wait:document.body.dataset.ready === '1' && \
document.body.dataset.sealed === '1'" "print:$shown" \
    "sh:$A replicate --server unix:$T/east.sock --token $(tok east) \
--check --timeout 60 > $T/check.out 2>&1" \
    "wait:!document.body.dataset.sealed" "print:$shown" 2>&1)
check "replica, D.3's live page: sealed while the deal is lost" \
    "sealed 2 0" "$(printf '%s\n' "$page" | sed -n 1p)"
check "replica, D.3's live page: the deal put back draws the table" \
    "in play 2 1" "$(printf '%s\n' "$page" | sed -n 2p)"
[ $fail -ne 0 ] && printf '%s\n' "$page" | sed 's/^/why: page: /'
check "D.3's deal put back" 3 "$(stat deals_republished)"
i=0
while [ "$(rstat deals)" != 3 ] && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
check "replica, D.3's deal put back: judged with it" "3 0" \
    "$(rstat deals) $(rstat chain_only)"
# Its state is served before the match's next event stores the secret
# (until 2026-12-05 refused as read_only: "its deal message has not come").
check "replica, D.3's deal put back: its state served at once" \
    "$(on east state --match D.3 --json)" \
    "$(on rep state --match D.3 --json 2>&1)"
# A restart before that next event (the secret is in memory only): the
# stream is read again from the deal put back, not from after what was
# read last, and the state is served again (no test failed when a
# restart resumed past the deal, and the match was judged on its chain
# only for good).
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
start_replica rep "$T/rep.conf"
caught_up D.3 east
check "replica restarted, D.3's secret in memory only: state served" \
    "$(on east state --match D.3 --json)" \
    "$(on rep state --match D.3 --json 2>&1)"
check "replica restarted, D.3's secret in memory only: resumed" 1 \
    "$([ "$(rstat resumed_at)" -gt 1 ] && echo 1)"
on east note --match D.3 after-the-deal > /dev/null || echo "note failed"
same_as_primary D.3:east
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
rm -rf "$T/rep"
start_replica rep "$T/rep.conf"
same_as_primary D.1:east D.2:east D.3:east
check "replica of the healed stream: every deal, none on its chain only" \
    "3 0" "$(rstat deals) $(rstat chain_only)"

# A replica without the replication key serves a running dealt match's
# events and subscriptions; its state (the hands, from the deal) is
# refused as `read_only` naming the recorder that can answer, over HTTP
# with 503 (until 2026-12-05 `internal`, a subscription refused with it,
# and the HTTP events "no match").
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
rm -rf "$T/rep"
printf '[http]\nlisten = tcp:127.0.0.1:%s\n' "$HTTP_PORT" > "$T/rep.conf"
start_replica rep "$T/rep.conf"
caught_up D.3 east events
out=$(on rep state --match D.3 --json 2>&1)
check "keyless replica: state refused as read_only, naming the recorder" 1 \
    "$(printf '%s\n' "$out" | grep -c "read_only: match 'D.3' is dealt and \
this read replica does not hold its deal secret (no replication key).*\
ask its primary, recorder east")"
check "keyless replica: its events served" \
    "$(on east events --match D.3 --json)" \
    "$(on rep events --match D.3 --json)"
check "keyless replica: a yahchain match's state served" \
    "$(on east state --match D.Y --json)" "$(on rep state --match D.Y --json)"
reader=$(awk '$4 == "reader" { print $3; exit }' "$T/rep/tokens")
http() {
    curl -s -o "$T/body" -w '%{http_code}' \
        -H "Authorization: Bearer $reader" "http://127.0.0.1:$HTTP_PORT$1"
}
check "keyless replica, HTTP state: 503 deal" "503 1" \
    "$(http /api/m/D.3/state) $(grep -c '"where":"deal"' "$T/body")"
check "keyless replica, HTTP events: 200" 200 "$(http /api/m/D.3/events)"
# A typed move it cannot read: said so (until 2026-12-06 a 500 "out of
# memory")
arb=$(awk '$4 == "arbiter" { print $3; exit }' "$T/rep/tokens")
check "keyless replica, HTTP judge of a typed move: 503 deal" "503 1" \
    "$(curl -s -o "$T/body" -w '%{http_code}' -X POST \
       -H "Authorization: Bearer $arb" --data '{"text":"discard ann B1"}' \
       "http://127.0.0.1:$HTTP_PORT/api/m/D.3/judge") $(grep -c \
       'does not hold its deal.*"where":"deal"' "$T/body")"
# A running dealt match asked for as a tournament is named for what it
# is, as on the recorder (the replica answered 500 "replay" until
# 2026-12-05, failing to replay it first).
check "keyless replica, a match as a tournament: 404" "404 1" \
    "$(http /api/t/D.3/board) $(grep -c 'not a tournament' "$T/body")"
timeout 2 $A watch --server "unix:$T/rep.sock" --token "$(tok rep)" \
    --match D.3 --from 0 --json > "$T/watch" 2> "$T/watch.err"
check "keyless replica: a subscription to it gets its events" "3 0" \
    "$(grep -c '"seq"' "$T/watch") $(wc -c < "$T/watch.err")"

# The recorder's machine lost: the stream restores every running dealt
# match with its secret (before, refused: "running dealt match").
restored_same east 3 D.1 D.2 D.Y D.Y1 D.Y2 D.Y3 D.Y4 D.Y5 D.Y6 D.3
if [ $fail -ne 0 ]; then
    printf '%s\n' "$out" | tail -n 5 | sed 's/^/why: restore: /'
    grep replicate "$T/east.log" | tail -n 10 | sed 's/^/why: east.log: /'
fi

# A dealt match held in memory on the replica (read there) while it
# closes: before the close a reader sees on the replica what it sees on
# the primary, no hash and no hidden argument; after it, every event
# whole, as on the primary, over the protocol, over HTTP, on its live
# stream and its subscription, and on every match's, alike (no test
# failed when the replica left such a match open in memory, its events
# hidden from readers for good).
rtok() { awk -v r="$2" '$4 == r { print $3; exit }' "$T/$1/tokens"; }
revents() {
    $A events --server "unix:$T/$1.sock" --token "$(rtok "$1" reader)" \
        --match "$2" --json 2>&1
}
hevents() {
    curl -s -H "Authorization: Bearer $(rtok rep "$1")" \
        "http://127.0.0.1:$HTTP_PORT/api/m/$2/events"
}
# The lines matching PATTERN that a reader's live stream at PATH, resumed
# after Last-Event-ID ID, sends within a second; read again (up to five
# times) while fewer than WANT came, as a loaded machine may take longer
# to send them.
resumed() {     # PATH ID PATTERN WANT
    _n=0; _k=0
    while [ "$_k" -lt 5 ]; do
        _n=$(curl -s -N --max-time 1 -H "Last-Event-ID: $2" \
             -H "Authorization: Bearer $(rtok rep reader)" \
             "http://127.0.0.1:$HTTP_PORT$1" \
             | grep '^data: ' | grep -c "$3")
        [ "$_n" -lt "$4" ] || break
        _k=$((_k + 1))
    done
    echo "$_n"
}
close_seen() {   # MATCH WHICH
    dealt "$1" "table-$2"
    caught_up "$1" east events
    on east move --match "$1" draw ann > /dev/null || echo "$1: draw failed"
    caught_up "$1" east events
    check "$2 replica, $1 open: a reader's events as on the primary" \
        "$(revents east "$1")" "$(revents rep "$1")"
    check "$2 replica, $1 open: a reader's events over HTTP, no hash" \
        "2 0" "$(hevents reader "$1" | grep -o '"seq":' | wc -l | tr -d ' ') \
$(hevents reader "$1" | grep -o '"hash":"' | wc -l | tr -d ' ')"
    # (The last call's files go first: the jobs below make theirs when
    # they run, and the wait for the streams to begin saw the last
    # match's stream, so the close could come before this one's began
    # and be only in its first state, failing the checks below in about
    # one run in three under load, until 2026-12-08.)
    rm -f "$T/live" "$T/live.all" "$T/watch" "$T/watch.all"
    curl -s -N --max-time 20 -H "Authorization: Bearer $(rtok rep reader)" \
        "http://127.0.0.1:$HTTP_PORT/api/m/$1/live" > "$T/live" &
    _curl=$!
    timeout 20 $A watch --server "unix:$T/rep.sock" \
        --token "$(rtok rep reader)" --match "$1" --from 0 --json \
        > "$T/watch" &
    _watch=$!
    timeout 20 $A watch --server "unix:$T/rep.sock" \
        --token "$(rtok rep reader)" --from 1 --json > "$T/watch.all" &
    _all=$!
    curl -s -N --max-time 20 -H "Authorization: Bearer $(rtok rep reader)" \
        "http://127.0.0.1:$HTTP_PORT/api/live" > "$T/live.all" &
    _lall=$!
    i=0     # (until both streams have begun: sealed without the key)
    until grep -Eq '^event: (state|sealed)' "$T/live" 2> /dev/null \
          && grep -q ': arbiter live' "$T/live.all" 2> /dev/null \
          || [ $i -ge 100 ]; do
        sleep 0.05; i=$((i + 1))
    done
    check "$2 replica, $1 open: both live streams began" 1 \
        "$([ $i -lt 100 ] && echo 1)"
    on east close --match "$1" --reason done > /dev/null \
        || echo "$1: close failed"
    caught_up "$1" east events
    i=0     # (until both streams have the close, 10 s)
    until grep -q '"kind":"close"' "$T/live" \
          && grep -q "\"match\":\"$1\".*\"kind\":\"close\"" "$T/live.all" \
          || [ $i -ge 200 ]; do
        sleep 0.05; i=$((i + 1))
    done
    sleep 0.5       # (the subscriptions have it too: then they stop)
    kill "$_curl" "$_watch" "$_all" "$_lall" 2> /dev/null
    wait "$_curl" "$_watch" "$_all" "$_lall"
    check "$2 replica, $1 closed: a reader's live stream, the close whole" \
        1 "$(grep -c '"kind":"close".*"hash":"' "$T/live")"
    check "$2 replica, $1 closed: a reader's subscription, the close whole" \
        1 "$(grep -c '"kind":"close".*"hash":"' "$T/watch")"
    check "$2 replica, $1 closed: a reader's live stream resumed, whole" 2 \
        "$(resumed "/api/m/$1/live" 0 '"seq":.*"hash":"' 2)"
    check "$2 replica, $1 closed: every match's subscription, the close" \
        1 "$(grep -c "\"match\":\"$1\".*\"kind\":\"close\".*\"hash\":\"" \
           "$T/watch.all")"
    # (every match's live stream, resumed at the close: its ack again)
    _id=$(grep -B1 "^data: {\"match\":\"$1\".*\"kind\":\"close\"" \
          "$T/live.all" | sed -n 's/^id: //p')
    check "$2 replica, $1 closed: every match's live stream, the close" \
        1 "$([ -n "$_id" ] && echo 1)"
    check "$2 replica, $1 closed: every match's live stream resumed" 1 \
        "$(resumed /api/live $((_id - 1)) \
           "\"match\":\"$1\".*\"kind\":\"close\".*\"hash\":\"" 1)"
    check "$2 replica, $1 closed: a reader's events as on the primary" \
        "$(revents east "$1")" "$(revents rep "$1")"
    check "$2 replica, $1 closed: a reader's events over HTTP whole" \
        "$(hevents arbiter "$1")" "$(hevents reader "$1")"
}
close_seen D.L keyless

# The live page of a running dealt match on the keyless replica: its
# stream starts with `sealed` (why) instead of a state, then carries the
# acks; the page says the hands are sealed here and lists the moves, adds
# each new one, and draws the table once the close reveals the deal.
# (Until 2026-12-05 the stream was refused with 503 and the page showed
# only that error, with no moves.)
dealt D.P table-p
on east note --match D.P first > /dev/null || echo "D.P: note failed"
caught_up D.P east events
live=$(curl -s -N --max-time 2 -H "Authorization: Bearer $reader" \
       "http://127.0.0.1:$HTTP_PORT/api/m/D.P/live")
check "keyless replica, HTTP live: sealed, no state, naming the recorder" \
    "1 0 1" "$(printf '%s\n' "$live" | grep -c '^event: sealed')\
 $(printf '%s\n' "$live" | grep -c '^event: state')\
 $(printf '%s\n' "$live" | grep -c 'recorder east.*"where":"deal"')"
# A reconnect that missed seq 1 gets its ack from the store, then sealed.
live=$(curl -s -N --max-time 2 -H "Authorization: Bearer $reader" \
       -H "Last-Event-ID: 0" "http://127.0.0.1:$HTTP_PORT/api/m/D.P/live")
check "keyless replica, HTTP live resumed: the missed ack, then sealed" \
    "event: ack id: 1 event: sealed id: 1" \
    "$(printf '%s\n' "$live" | grep '^event\|^id' | tr '\n' ' ' \
       | sed 's/ $//')"
moves="document.querySelectorAll('#moves [data-seq]').length"
seen="document.getElementById('status').textContent + ' ' + $moves + ' ' \
+ document.body.dataset.seq + ' ' + document.getElementById('history').hidden \
+ ' ' + document.querySelectorAll('#table svg').length"
# With no state to follow them, the acks are the list: an ack met before
# the events it follows arrived fetches them.  Here every answer of
# /events reaches the page 5 s late, and a move is recorded 3 s in, while
# the page's first answers (taken before the move) are still on their
# way: its ack finds the list empty (until 2026-12-05 it was dropped, and
# the list stayed one move short, every later ack dropped too).
slow="(function () { var f = window.fetch; window.fetch = function (u, o) {\
 return f(u, o).then(function (r) { return String(u).indexOf('/events') < 0\
 ? r : new Promise(function (ok) { setTimeout(function () { ok(r); },\
 5000); }); }); }; })();"
page=$(${BUILD:-build}/tests/page_steps \
    "http://127.0.0.1:$HTTP_PORT/m/D.P#token=$reader" "init:$slow" \
    "sh:sleep 3; $A note --server unix:$T/east.sock --token $(tok east) \
--match D.P early > /dev/null" \
    "wait:$moves === 3" "print:$seen" 2>&1)
check "keyless replica, live page: a move whose ack came first is listed" \
    "sealed 3 2 true 0" "$(printf '%s\n' "$page" | sed -n 1p)"
[ $fail -ne 0 ] && printf '%s\n' "$page" | sed 's/^/why: page: /'
# A browser that cannot stream (ARB.follow answers false) reads the
# state, whose 503 (where: deal) leads to the same sealed view.
page=$(${BUILD:-build}/tests/page_steps \
    "http://127.0.0.1:$HTTP_PORT/m/D.P#token=$reader" \
    "init:window.ReadableStream = undefined;" \
    "wait:document.body.dataset.ready === '1' && \
document.body.dataset.sealed === '1'" \
    "print:$seen" "print:document.getElementById('table').textContent" \
    2>&1)
check "keyless replica, page without a stream: sealed, the moves listed" \
    "sealed 3 2 true 0" "$(printf '%s\n' "$page" | sed -n 1p)"
check "keyless replica, page without a stream: says why" 1 \
    "$(printf '%s\n' "$page" | sed -n 2p | grep -c "does not hold its deal \
secret (no replication key).*recorder east")"
[ $fail -ne 0 ] && printf '%s\n' "$page" | sed 's/^/why: page: /'
page=$(${BUILD:-build}/tests/page_steps \
    "http://127.0.0.1:$HTTP_PORT/m/D.P#token=$reader" \
    "wait:document.body.dataset.ready === '1' && \
document.body.dataset.sealed === '1'" \
    "print:$seen" \
    "print:document.getElementById('table').textContent" \
    "sh:$A note --server unix:$T/east.sock --token $(tok east) --match D.P \
second > /dev/null" \
    "wait:$moves === 4" "print:$seen" \
    "sh:$A close --server unix:$T/east.sock --token $(tok east) --match D.P \
--reason done > /dev/null" \
    "wait:!document.body.dataset.sealed" "print:$seen" 2>&1)
check "keyless replica, live page: sealed, the moves listed" \
    "sealed 3 2 true 0" "$(printf '%s\n' "$page" | sed -n 1p)"
check "keyless replica, live page: says why" 1 \
    "$(printf '%s\n' "$page" | sed -n 2p | grep -c "does not hold its deal \
secret (no replication key).*recorder east")"
check "keyless replica, live page: a new move added" "sealed 4 3 true 0" \
    "$(printf '%s\n' "$page" | sed -n 3p)"
check "keyless replica, live page: the close draws the table" \
    "closed 5 4 false 1" "$(printf '%s\n' "$page" | sed -n 4p)"
[ $fail -ne 0 ] && printf '%s\n' "$page" | sed 's/^/why: page: /'
# Closed, the match's state at every seq: the close's reveal stands for
# the secret (until 2026-12-05 refused as read_only, as while it ran).
caught_up D.P east state
for at in 1 3; do
    check "keyless replica: the closed dealt match's state at $at" \
        "$(on east state --match D.P --at $at --json)" \
        "$(on rep state --match D.P --at $at --json 2>&1)"
done

# A tournament whose tables are dealt (deal=seed): on the keyless
# replica its board shows a running table as playing and sealed, and its
# standings leave it uncounted (until 2026-12-05 both were refused there
# as a whole), and `tournament show` from a server lists it as sealed
# (it failed).
tourn() {
    _on=$1; _sub=$2; shift 2
    $A tournament "$_sub" --server "unix:$T/$_on.sock" \
        --token "$(tok "$_on")" "$@"
}
# dealt_round ID CSV: a dealt Chains tournament on east, its round 1.
dealt_round() {
    tourn east create --tournament "$1" --game chains --option deck=36 \
        --option scoring=square --deal seed > /dev/null 2>&1 \
        || echo "tournament create failed"
    tourn east round --tournament "$1" --pairings "$2" > /dev/null 2>&1 \
        || echo "tournament round failed"
}
printf 'round,table,player1,player2\n1,1,ann:long,bob:short\n' > "$T/dt.csv"
dealt_round D.T "$T/dt.csv"
caught_up D.T-R1-T1 east events
# (Its open and a note: not started, sealed or not, as the primary's
# board says: a note is no move; until 2026-12-06 a sealed reader said
# "playing" once anything followed the open.)
on east note --match D.T-R1-T1 "players seated" > /dev/null
caught_up D.T-R1-T1 east events
out=$(tourn rep board --tournament D.T --json 2>&1)
check "keyless replica, tournament board: the dealt table sealed" 1 \
    "$(printf '%s\n' "$out" \
       | grep -c '"match":"D.T-R1-T1".*"status":"not_started".*"sealed":true')"
out=$(tourn rep standings --tournament D.T --json 2>&1)
check "keyless replica, tournament standings: the table uncounted" 1 \
    "$(printf '%s\n' "$out" | grep -c '"uncounted":\["D.T-R1-T1"\]')"
page=$(${BUILD:-build}/tests/page_steps \
    "http://127.0.0.1:$HTTP_PORT/t/D.T#token=$reader" \
    "wait:document.body.dataset.ready === '1'" \
    "print:document.querySelector('#board tr[data-table=\"1\"] \
td:nth-child(3)').textContent" 2>&1)
check "keyless replica, board page: the table not started, sealed here" \
    "not started (sealed here: ask the primary)" "$page"
check "tournament show from a server: the table not started, sealed" 1 \
    "$(tourn east show --tournament D.T 2>&1 \
       | grep -c 'D.T-R1-T1 .*not_started, sealed')"
# A move let stand (an illegal one an arbiter ruled stands: bob passing
# before ann's first move) is a move: the sealed table is in play (no
# test failed when only a plain move counted there).
on east rule --match D.T-R1-T1 stands pass bob --reason "out of turn" \
    > /dev/null 2>&1 || echo "stands on D.T-R1-T1 failed"
caught_up D.T-R1-T1 east events
out=$(tourn rep board --tournament D.T --json 2>&1)
check "keyless replica, tournament board: a move let stand, playing" 1 \
    "$(printf '%s\n' "$out" \
       | grep -c '"match":"D.T-R1-T1".*"status":"playing".*"sealed":true')"
# A round of 35 dealt tables: its `round` act, a `tables` act and 35
# opens in one transaction, followed by the replica (the tournament's
# state the primary's, every table on its board).
{
    echo "round,table,player1,player2"
    i=1
    while [ $i -le 35 ]; do echo "1,$i,l$i:long,s$i:short"; i=$((i + 1)); done
} > "$T/du.csv"
dealt_round D.U "$T/du.csv"
caught_up D.U-R1-T35 east events
caught_up D.U east events
check "replica, a round of 35 tables in two acts: the tournament's state" \
    "$(on east state --match D.U --json)" \
    "$(on rep state --match D.U --json 2>&1)"
check "replica, a round of 35 tables: all on its board" 35 \
    "$(tourn rep board --tournament D.U --json 2>&1 \
       | grep -o '"match":"D.U-R1-T[0-9]*"' | sort -u | wc -l | tr -d ' ')"

# A dealt open whose deal message the stream lost before a replica with
# the key read it, and nothing read after it: the open waits for its
# deal a few commits, is looked for in the stream (not there), and is
# stored, judged on its chain only (no test failed when it waited for
# the next message read, for good on a stream at rest).
dealt D.5 table-5
i=0
while [ "$(stat lag_events)" != 0 ] && [ $i -lt 200 ]; do
    sleep 0.1; i=$((i + 1))
done
lose D.5
printf '[replica]\nsecret_key_file = %s\n' "$T/repl.key" > "$T/rep3.conf"
start_replica rep3 "$T/rep3.conf"
want=$(on east events --match D.5 --json)
i=0
while [ "$(on rep3 events --match D.5 --json 2>&1)" != "$want" ] \
      && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
done
check "replica, D.5's deal lost and nothing after its open: stored" \
    "$want" "$(on rep3 events --match D.5 --json 2>&1)"

# The same on a replica with the key, whose match in memory moves on by
# its new events rather than by a replay.
kill "$pid_rep"; wait "$pid_rep" 2>/dev/null
rm -rf "$T/rep"
printf '[replica]\nsecret_key_file = %s\n[http]\nlisten = tcp:127.0.0.1:%s\n' \
    "$T/repl.key" "$HTTP_PORT" > "$T/rep.conf"
start_replica rep "$T/rep.conf"
close_seen D.K keyed
echo "nats_deal.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
