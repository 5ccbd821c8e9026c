#!/bin/sh
# arbiterd's start: a Unix socket another recorder listens on is never
# taken over (one left by a crash is), and its command line is read as
# the arbiter tool's (--name VALUE or --name=VALUE), a missing or empty
# value and a bad listen address refused as bad configuration (exit 2)
# before anything is made.
. tests/common.sh

start_recorder
S=$T/s.sock
check "first recorder up" 1 "$([ -S "$S" ] && echo 1)"

# A second recorder, another data directory, the same socket: refused
# (until 2026-12-06 it replaced the socket, and removed it when it
# stopped: the first ran on, unreachable, and said nothing).
bin/arbiterd --data "$T/other" --listen "unix:$S" > "$T/b.log" 2>&1 &
b=$!
i=0
while kill -0 $b 2> /dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 $b 2> /dev/null && { kill $b; check "second recorder stopped" 1 0; }
wait $b
check "second recorder: could not start" 1 $?
check "... says why" 1 "$(grep -c "listen unix:$S: another process is listening there (is a recorder already running on this socket?); not taken over" "$T/b.log")"
check "the socket is still there" 1 "$([ -S "$S" ] && echo 1)"
$A stats > /dev/null 2>&1
check "the first recorder still answers on it" 0 $?

# One left by a crash is taken.
kill -9 "$pid"; wait "$pid" 2> /dev/null; pid=
check "a crash leaves the socket" 1 "$([ -S "$S" ] && echo 1)"
start_recorder      # (the old file is there at once: wait for answers)
i=0
until $A stats > /dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
$A stats > /dev/null 2>&1
check "a restart takes a dead recorder's socket" 0 $?
kill "$pid"; wait "$pid" 2> /dev/null; pid=

# A directory where the socket would go: said, not "address in use".
mkdir -p "$T/adir"
timeout 10 bin/arbiterd --data "$T/dd" --listen "unix:$T/adir" > "$T/ad.log" 2>&1
check "a directory at the socket's path: could not start" 1 $?
check "... said" 1 "$(grep -c "listen unix:$T/adir: there is a directory there, not a socket: not replaced" "$T/ad.log")"

# --name=VALUE
bin/arbiterd --data="$T/eq" --listen="unix:$T/eq.sock" --log-level=warn \
    > "$T/eq.log" 2>&1 &
pid=$!
i=0
while [ ! -S "$T/eq.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "--name=VALUE taken" 1 "$([ -S "$T/eq.sock" ] && echo 1)"
kill "$pid"; wait "$pid" 2> /dev/null; pid=

# SIGHUP reloads tokens only, and says when anything else changed.
printf 'data = %s/hup\nlisten = unix:%s/hup.sock\nlog_level = info\n' \
    "$T" "$T" > "$T/hup.conf"
bin/arbiterd --config "$T/hup.conf" > "$T/hup.log" 2>&1 &
pid=$!
i=0
while [ ! -S "$T/hup.sock" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
hup() {     # hup: SIGHUP, then wait for its answer in the log
    n=$(grep -c "SIGHUP: " "$T/hup.log")
    kill -HUP "$pid"
    i=0
    while [ "$(grep -c "SIGHUP: [0-9]* tokens loaded" "$T/hup.log")" -le "$n" ] \
          && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
echo "token = a-token-for-the-reload-0123 reader r1" >> "$T/hup.conf"
hup
check "a token added: nothing else said" 0 "$(grep -c "changed besides its tokens" "$T/hup.log")"
sed -i 's/^log_level = info$/log_level = debug/' "$T/hup.conf"
hup
check "another key changed: said" 1 "$(grep -c "SIGHUP: $T/hup.conf changed besides its tokens; only tokens are reloaded: restart arbiterd for the rest" "$T/hup.log")"
kill "$pid"; wait "$pid" 2> /dev/null; pid=
# Tokens readable by others: said at the start (the config holds one now).
chmod 644 "$T/hup.conf"
bin/arbiterd --config "$T/hup.conf" > "$T/hup2.log" 2>&1 &
pid=$!
i=0
while ! grep -q "ready" "$T/hup2.log" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "tokens readable by others: said" 1 "$(grep -c "$T/hup.conf holds tokens and is readable by others (mode 0644): chmod 600 it" "$T/hup2.log")"
check "... the generated tokens file is not" 0 "$(grep -c "$T/hup/tokens holds tokens" "$T/hup2.log")"
kill "$pid"; wait "$pid" 2> /dev/null; pid=

# Refused as bad configuration, nothing made.
refused() {     # refused NAME WANT ARGS...
    name=$1; want=$2; shift 2
    timeout 10 bin/arbiterd "$@" > "$T/r.log" 2>&1
    check "$name: exit 2" 2 $?
    check "$name: says" "$want" "$(head -1 "$T/r.log")"
}
refused "--data without a value" "arbiterd: --data needs a value (arbiterd --help)" \
    --data
refused "--data ''" "arbiterd: --data needs a value (arbiterd --help)" \
    --data ""
refused "port 99999" "arbiterd: --listen takes unix:PATH or tcp:HOST:PORT (a numeric address, port 1 to 65535), at most 4 times: bad address 'tcp:127.0.0.1:99999': the port must be a number from 1 to 65535" \
    --data "$T/bad" --listen tcp:127.0.0.1:99999
refused "a fifth --listen" "arbiterd: --listen takes unix:PATH or tcp:HOST:PORT (a numeric address, port 1 to 65535), at most 4 times" \
    --data "$T/bad" --listen unix:$T/1 --listen unix:$T/2 \
    --listen unix:$T/3 --listen unix:$T/4 --listen unix:$T/5
printf 'data = %s/bad\ndata = %s/bad2\n' "$T" "$T" > "$T/dup.conf"
refused "a key given twice" "arbiterd: $T/dup.conf: line 2: data given again (first at line 1)" \
    --config "$T/dup.conf"
check "nothing made" "" "$(ls -d "$T/bad" "$T/bad2" 2> /dev/null)"

echo "start.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
