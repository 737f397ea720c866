#!/usr/bin/env bash
# The import beside the benchmark's bulk mode, on the same rows, against one testkit process.
#
# usage: ingester-import/benchmark.sh [ROUNDS] [BENCH_FILES_DIR]
#   ROUNDS           measured rounds (default 6), after one warm-up round that is not reported
#   BENCH_FILES_DIR  where WriteBenchFiles wrote the parts (default /tmp/bench; see the module's README)
# Needs the jars of ingester-import, ingester-bench and ingester-testkit (./mvnw -B -ntp -pl
# ingester-bench,ingester-import,ingester-testkit -am package -DskipTests) and free ports 14000 and 14001.
#
# Both commands run with their default settings; IMPORT_OPTIONS and BENCH_OPTIONS (empty by default) add options to
# every import and every benchmark run, e.g. BENCH_OPTIONS="--parallelism 2".
# Each round runs, per workload, the benchmark's bulk mode and the import from CSV and from Parquet, in this order
# in odd rounds and reversed in even ones, so that neither side always meets the server warmer. It prints one line
# per command (round, workload, kind, rows/s over the writing span, whole-run rows/s, setup seconds, wall seconds,
# CPU seconds), then, per cell, the import's span rate as a share of the benchmark's span rate in the same round,
# and the median share over the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-6}
IMPORT_OPTIONS=${IMPORT_OPTIONS:-}
BENCH_OPTIONS=${BENCH_OPTIONS:-}
FILES=${2:-/tmp/bench}
TESTKIT=$(ls ingester-testkit/target/ingester-testkit-*-all.jar | head -1)
BENCH=ingester-bench/target/ingester-bench.jar
IMPORT=ingester-import/target/sluice-import.jar
for f in "$TESTKIT" "$BENCH" "$IMPORT" "$FILES/metrics-csv" "$FILES/logs-parquet"; do
  [ -e "$f" ] || { echo "missing $f: see ingester-import/README.md, Benchmark" >&2; exit 2; }
done
java --add-opens=java.base/java.nio=ALL-UNNAMED -XX:MaxDirectMemorySize=4g -Xmx2g \
  -jar "$TESTKIT" --port 14001 --http-port 14000 --no-retain-rows > /dev/null 2>&1 &
TK=$!
trap 'kill $TK 2>/dev/null' EXIT
sleep 4
OUT=$(mktemp)

one() { # round workload kind -> "round workload kind spanRowsPerSecond runRowsPerSecond setup wall cpu"
  local r=$1 w=$2 k=$3 rows opts out t
  if [ "$w" = metrics ]; then rows=1000000; opts="--tags host,region,datacenter,service"
  else rows=250000; opts="--types trace_flags:String,errno:String"; fi
  if [ "$k" = bench ]; then
    out=$( { /usr/bin/time -f "TIME %e %U %S" java -jar $BENCH --workload $w --rows $rows --mode bulk \
      --warmup-rows 0 --endpoint 127.0.0.1:14001 --http-endpoint 127.0.0.1:14000 $BENCH_OPTIONS; } 2>&1 | tr '\r' '\n')
    local rps
    rps=$(echo "$out" | grep -E '^bulk +[0-9,]+ +[0-9.]+ ' | awk '{gsub(",", "", $4); print $4}')
    t=$(echo "$out" | grep '^TIME' | awk '{print $2, $3 + $4}')
    echo "$r $w bench $rps $rps 0 $t"
  else
    out=$( { /usr/bin/time -f "TIME %e %U %S" java -jar $IMPORT -e 127.0.0.1:14001 --http-endpoint 127.0.0.1:14000 \
      --restart --quiet --summary-json=- --table bench_${w}_$k $opts $IMPORT_OPTIONS "$FILES/$w-$k/"; } 2>&1)
    local js span run setup
    js=$(echo "$out" | tr -d '\n ')
    span=$(echo "$js" | grep -o -E '"transferRowsPerSecond":[0-9.]+' | cut -d: -f2)
    run=$(echo "$js" | grep -o -E '"rowsPerSecond":[0-9.]+' | cut -d: -f2)
    setup=$(echo "$js" | grep -o -E '"setupSeconds":[0-9.]+' | cut -d: -f2)
    t=$(echo "$out" | grep '^TIME' | awk '{print $2, $3 + $4}')
    echo "$r $w $k $span $run $setup $t"
  fi
}

for w in metrics logs; do for k in bench csv parquet; do one 0 $w $k > /dev/null; done; done
echo "round workload kind span_rows/s run_rows/s setup_s wall_s cpu_s"
for r in $(seq 1 "$ROUNDS"); do
  for w in metrics logs; do
    if [ $((r % 2)) = 1 ]; then kinds="bench csv parquet"; else kinds="parquet csv bench"; fi
    for k in $kinds; do one $r $w $k | tee -a "$OUT"; done
  done
done
echo
echo "import span rate as a share of the benchmark's in the same round; the median over the rounds"
awk '
  { rate[$1 " " $2 " " $3] = $4; runrate[$1 " " $2 " " $3] = $5; if ($1 > n) n = $1 }
  function median(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    split("metrics logs", ws, " "); split("csv parquet", ks, " ")
    for (wi = 1; wi <= 2; wi++) for (ki = 1; ki <= 2; ki++) {
      w = ws[wi]; k = ks[ki]; line = ""; below = 0; delete s; delete u
      for (r = 1; r <= n; r++) {
        s[r] = 100 * rate[r " " w " " k] / rate[r " " w " bench"]
        u[r] = 100 * runrate[r " " w " " k] / rate[r " " w " bench"]
        line = line sprintf(" %.0f%%", s[r]); if (s[r] < 80) below++
      }
      printf "%-8s %-8s span:%s  median %.0f%% (%d of %d rounds under 80%%); whole run: median %.0f%%\n", \
        w, k, line, median(s, n), below, n, median(u, n)
    }
  }' "$OUT"
rm -f "$OUT"
