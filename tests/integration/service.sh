#!/bin/sh
# The systemd unit and `make install`: everything lands under DESTDIR and
# PREFIX with its mode, the unit carries the install's paths and the
# hardening the operator relies on, and `systemd-analyze verify` accepts
# it (when systemd-analyze is there; it says so when it is not).
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

check() {   # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass=$((pass + 1))
    else fail=$((fail + 1)); printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fi
}
has() { grep -c "^$1\$" "$2"; }

U=config/arbiterd.service
check "readiness" 1 "$(has 'Type=notify' $U)"
check "dedicated user" 1 "$(has 'User=arbiter' $U)"
check "state directory" 1 "$(has 'StateDirectory=arbiter' $U)"
check "state directory 0700" 1 "$(has 'StateDirectoryMode=0700' $U)"
check "ProtectSystem=strict" 1 "$(has 'ProtectSystem=strict' $U)"
check "NoNewPrivileges" 1 "$(has 'NoNewPrivileges=yes' $U)"
check "PrivateTmp" 1 "$(has 'PrivateTmp=yes' $U)"
check "fail-stop status not restarted" 1 "$(has 'RestartPreventExitStatus=70 2' $U)"
check "restart on failure" 1 "$(has 'Restart=on-failure' $U)"
check "reload sends SIGHUP" 1 "$(has 'ExecReload=/bin/kill -HUP $MAINPID' $U)"
# the status the unit names is the one the daemon exits with
check "daemon's fail-stop status" 1 "$(grep -c 'ARB_EXIT_FAILSTOP *= *70' daemon/server.h)"

make -s --no-print-directory install DESTDIR="$T/root" PREFIX=/usr \
    > "$T/install.log" 2>&1
check "make install" 0 $?
R=$T/root
for f in usr/bin/arbiter:755 usr/bin/arbiterd:755 \
         etc/arbiter/arbiterd.conf:640 usr/share/arbiter/arbiterd.conf:644 \
         usr/lib/systemd/system/arbiterd.service:644 \
         usr/lib/sysusers.d/arbiter.conf:644 \
         usr/share/bash-completion/completions/arbiter:644 \
         usr/share/man/man1/arbiter.1:644 usr/share/man/man5/arbiterd.conf.5:644 \
         usr/share/man/man8/arbiterd.8:644; do
    check "installed ${f%:*}" "${f#*:}" "$(stat -c %a "$R/${f%:*}" 2>/dev/null)"
done
IU=$R/usr/lib/systemd/system/arbiterd.service
check "unit runs the installed daemon" 1 "$(grep -c '^ExecStart=/usr/bin/arbiterd --config /etc/arbiter/arbiterd.conf ' "$IU")"
# an operator's configuration is never overwritten
echo "# mine" > "$R/etc/arbiter/arbiterd.conf"
make -s --no-print-directory install DESTDIR="$T/root" PREFIX=/usr > /dev/null 2>&1
check "config kept on reinstall" "# mine" "$(cat "$R/etc/arbiter/arbiterd.conf")"

# Installed on this machine (no DESTDIR) the configuration is given to the
# group arbiter, which the service reads it as; systemd-sysusers makes
# the group when it is missing.  Stubs stand for getent, systemd-sysusers
# and chgrp (until 2026-12-05 the file stayed root's: the service could
# not read it and did not start).
cat > "$T/getent" <<'EOS'
[ -e "$(dirname "$0")/group" ]
EOS
cat > "$T/sysusers" <<'EOS'
echo "$@" > "$(dirname "$0")/sysusers.args"
[ -e "$(dirname "$0")/nogroup" ] || touch "$(dirname "$0")/group"
EOS
cat > "$T/chgrp" <<'EOS'
echo "$@" > "$(dirname "$0")/chgrp.args"
EOS
M=$T/m
make -s --no-print-directory install PREFIX="$M/usr" SYSCONFDIR="$M/etc" \
    GETENT="sh $T/getent" SYSUSERS="sh $T/sysusers" CHGRP="sh $T/chgrp" \
    > "$T/inst.out" 2>&1
check "install here: the group made by systemd-sysusers" \
    "$M/usr/lib/sysusers.d/arbiter.conf" "$(cat "$T/sysusers.args" 2>&1)"
check "install here: the configuration given to it" \
    "arbiter $M/etc/arbiter/arbiterd.conf" "$(cat "$T/chgrp.args" 2>&1)"
rm -rf "$M" "$T/group" "$T/chgrp.args"; touch "$T/nogroup"
make -s --no-print-directory install PREFIX="$M/usr" SYSCONFDIR="$M/etc" \
    GETENT="sh $T/getent" SYSUSERS="sh $T/sysusers" CHGRP="sh $T/chgrp" \
    > "$T/inst.out" 2>&1
check "install here, no group: said, nothing given" "1 no" \
    "$(grep -c 'chgrp arbiter) before the service starts' "$T/inst.out") $([ -e "$T/chgrp.args" ] && echo yes || echo no)"

if command -v systemd-analyze > /dev/null 2>&1; then
    # verify wants ExecStart to exist: point it at the installed copy
    sed "s|^ExecStart=/usr/bin/arbiterd|ExecStart=$R/usr/bin/arbiterd|" "$IU" \
        > "$T/arbiterd.service"
    out=$(systemd-analyze verify --man=no "$T/arbiterd.service" 2>&1); rc=$?
    check "systemd-analyze verify exit" 0 $rc
    check "systemd-analyze verify says nothing" "" "$out"
    # and it would catch a broken unit
    sed 's/^Type=notify/Type=notify\nExecStrat=oops/' "$T/arbiterd.service" > "$T/bad.service"
    check "verify catches a bad key" 1 "$(systemd-analyze verify --man=no "$T/bad.service" 2>&1 | grep -c "Unknown key")"
else
    echo "service.sh: systemd-analyze not found (install the systemd package): verify skipped"
fi

echo "service.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
