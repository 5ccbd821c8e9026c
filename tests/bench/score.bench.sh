#!/bin/sh
# Throughput of `arbiter score --mode 3 -`: 2,000,000 random 3-card lines
# (a deterministic mix of ASCII, Unicode and #N notation), median of 5 runs.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
N=${SCORE_LINES:-2000000}
awk -v n="$N" 'BEGIN {
    split("2 3 4 5 6 7 8 9 10 J Q K", ty, " ");
    split("S H D C U M W F L G Y N", su, " ");
    srand(7);
    for (i = 0; i < n; i++) {
        line = "";
        for (j = 0; j < 3; j++) {
            t = ty[int(rand() * 12) + 1]; s = int(rand() * 12) + 1;
            c = (i % 3 == 0) ? t "#" s : t su[s];
            line = line (j ? " " : "") c;
        }
        print line;
    }
}' > "$T/in"
runs=""
for r in 1 2 3 4 5; do
    s=$(date +%s.%N)
    bin/arbiter score --mode 3 - < "$T/in" > "$T/out"
    e=$(date +%s.%N)
    runs="$runs $(awk -v n="$N" -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", n / (e - s) }')"
done
med=$(printf '%s\n' $runs | sort -n | sed -n 3p)
printf 'score: %d lines x5, median %.0f sequences/s (runs:%s)\n' "$N" "$med" \
    "$(printf ' %.0f' $runs)"
