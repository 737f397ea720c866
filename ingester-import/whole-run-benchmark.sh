#!/usr/bin/env bash
# What a user waits for: `sluice import` timed from process start to exit, beside the benchmark's bulk rate.
#
# usage: ingester-import/whole-run-benchmark.sh [ROUNDS] [METRICS_CSV_DIR]
#   ROUNDS           measured rounds (default 5), after one warm-up round that is not reported
#   METRICS_CSV_DIR  the 1,000,000 metrics rows as CSV parts (default /tmp/bench/metrics-csv; see the module's
#                    README, Benchmark)
# Needs the builds of ingester-import (its sluice script and jar), ingester-bench and ingester-testkit
# (./mvnw -B -ntp -pl ingester-bench,ingester-import,ingester-testkit -am package -DskipTests) and two free ports,
# GRPC_PORT and HTTP_PORT (default 14001 and 14000). SLUICE names another sluice script to time (default: the build's).
#
# A round runs, in this order in odd rounds and reversed in even ones:
#   bench      the benchmark's bulk mode on the same 1M metrics rows, its defaults (5 writers)
#   bench-p2   the same with --parallelism 2, the import's default number of writers
#   import-1m  sluice import of the CSV parts, its defaults
#   import-10  sluice import of a 10-row CSV file, its defaults
# Each line gives the command's wall and CPU seconds (/usr/bin/time) and its rows/s: the benchmark's own figure
# (its writing span), the import's rows over its whole process (start to exit) and, from its summary, over its
# transfer span. The end gives the medians and, round by round, the import's whole-process and transfer rates as
# shares of each benchmark rate in the same round. The import runs through the sluice script with its class-data sharing archive
# in a directory of this run (the warm-up round writes it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
FILES=${2:-/tmp/bench/metrics-csv}
TESTKIT=$(ls ingester-testkit/target/ingester-testkit-*-all.jar | head -1)
BENCH=ingester-bench/target/ingester-bench.jar
SLUICE=${SLUICE:-ingester-import/target/sluice}
GRPC_PORT=${GRPC_PORT:-14001}
HTTP_PORT=${HTTP_PORT:-14000}
for f in "$TESTKIT" "$BENCH" "$SLUICE" "$FILES"; do
  [ -e "$f" ] || { echo "missing $f: see ingester-import/README.md, Benchmark" >&2; exit 2; }
done
WORK=$(mktemp -d)
export SLUICE_CACHE_DIR=$WORK/cache
java --add-opens=java.base/java.nio=ALL-UNNAMED -XX:MaxDirectMemorySize=4g -Xmx2g \
  -jar "$TESTKIT" --port $GRPC_PORT --http-port $HTTP_PORT --no-retain-rows > /dev/null 2>&1 &
TK=$!
trap 'kill $TK 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:$HTTP_PORT/health && break; sleep 1; done
{
  echo "ts,host,cpu"
  for i in $(seq 0 9); do echo "$((1704067200000 + i)),host-$i,$i.5"; done
} > "$WORK/ten.csv"
T="/usr/bin/time -f TIME_%e_%U_%S"

one() { # round kind -> "round kind wall cpu rows/s transfer_rows/s"
  local r=$1 k=$2 out t
  case $k in
  bench|bench-p2)
    local p=""; [ "$k" = bench-p2 ] && p="--parallelism 2"
    out=$( { $T java -jar $BENCH --workload metrics --rows 1000000 --mode bulk --warmup-rows 0 \
      --endpoint 127.0.0.1:$GRPC_PORT --http-endpoint 127.0.0.1:$HTTP_PORT $p; } 2>&1 | tr '\r' '\n')
    local rps; rps=$(echo "$out" | grep -E '^bulk +[0-9,]+ +[0-9.]+ ' | awk '{gsub(",", "", $4); print $4}')
    t=$(echo "$out" | grep '^TIME_' | tr '_' ' ' | awk '{print $2, $3 + $4}')
    echo "$r $k $t $rps $rps" ;;
  import-1m|import-10)
    local rows=1000000 in=$FILES/ opts="--tags host,region,datacenter,service"
    [ "$k" = import-10 ] && { rows=10; in=$WORK/ten.csv; opts="--tags host"; }
    out=$( { $T $SLUICE import -e 127.0.0.1:$GRPC_PORT --http-endpoint 127.0.0.1:$HTTP_PORT --restart --quiet \
      --summary-json=- --table whole_run_${k#import-} --state "$WORK/$k.state.json" $opts "$in"; } 2>&1)
    local span; span=$(echo "$out" | tr -d '\n ' | grep -o -E '"transferRowsPerSecond":[0-9.]+' | cut -d: -f2)
    t=$(echo "$out" | grep '^TIME_' | tr '_' ' ' | awk '{print $2, $3 + $4}')
    echo "$r $k $t $(echo "$t" | awk -v n=$rows '{printf "%.0f", n / $1}') ${span:-0}" ;;
  esac
}

KINDS="bench bench-p2 import-1m import-10"
for k in $KINDS; do one 0 $k > /dev/null; done
OUT=$WORK/rounds.txt
echo "round kind wall_s cpu_s rows/s transfer_rows/s"
for r in $(seq 1 "$ROUNDS"); do
  ks=$KINDS; [ $((r % 2)) = 0 ] && ks=$(echo $KINDS | tr ' ' '\n' | tac | tr '\n' ' ')
  for k in $ks; do one $r $k | tee -a "$OUT"; done
done
echo
awk '
  { wall[$2, $1] = $3; cpu[$2, $1] = $4; rate[$2, $1] = $5; span[$2, $1] = $6; if ($1 > n) n = $1 }
  function median(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  function med(arr, k,   r, v) { for (r = 1; r <= n; r++) v[r] = arr[k, r]; return median(v, n) }
  END {
    printf "medians over %d rounds:\n", n
    split("bench bench-p2 import-1m import-10", ks, " ")
    for (i = 1; i <= 4; i++) printf "  %-9s wall %.2f s, cpu %.2f s, %.0f rows/s%s\n", ks[i], med(wall, ks[i]), \
      med(cpu, ks[i]), med(rate, ks[i]), ks[i] ~ /import/ ? sprintf(" over the whole process, %.0f over the transfer", med(span, ks[i])) : " (its writing span)"
    for (i = 1; i <= 2; i++) {
      line = ""; for (r = 1; r <= n; r++) { s[r] = 100 * rate["import-1m", r] / rate[ks[i], r]; line = line sprintf(" %.0f%%", s[r]) }
      printf "import-1m whole process / %s: %s; median %.0f%%\n", ks[i], line, median(s, n)
      line = ""; for (r = 1; r <= n; r++) { s[r] = 100 * span["import-1m", r] / rate[ks[i], r]; line = line sprintf(" %.0f%%", s[r]) }
      printf "import-1m transfer      / %s: %s; median %.0f%%\n", ks[i], line, median(s, n)
    }
  }' "$OUT"
