#!/usr/bin/env bash
# Side-by-side client cost on this machine: each client in its own JVM, fed the same rows by the benchmark's workload
# classes, against the same server, the clients interleaved round by round. Clients:
#   official   the official GreptimeDB Java ingester from Maven Central (official-java/OfficialCostClient)
#   sluice     Sluice's regular path, the cost benchmark's client (ingester-bench CostClient)
#   floor      gRPC-Java over Netty sending the bytes Sluice's regular path sends, nothing else
#              (transport-floor/TransportFloor); floor+disableRetry+waterMark etc. try channel settings
#   sluicebulk Sluice's bulk path, the cost benchmark's client: one BulkStreamWriter, PAR batches in flight
#   CLIENT@JAR any Sluice client above run from another build's ingester-bench.jar, e.g.
#              sluicebulk@/tmp/before/ingester-bench.jar beside sluicebulk, to set two builds side by side
#   workload   no client: the benchmark's workload making the same rows batch by batch on as many threads as
#              sluice (or, as workload+bulk, as sluicebulk) and reading each value once (CostClient --mode workload);
#              a client's own cost is its figure less this one, which is what the floors compare with
#   +typed     after sluice, sluicebulk or workload: rows through the typed row appender (RowAppender: primitive
#              longs and doubles, no Object[]) instead of addRow(Object...), e.g. sluicebulk+typed
#   bulkfloor  gRPC-Java over Netty streaming, on one DoPut call with PAR batches in flight, the FlightData
#              Sluice's bulk path sends, nothing else (transport-floor/BulkFloor)
# Each prints per round: marginal CPU per row (long run less short run, over the extra rows; metrics 1M and 4M,
# logs 0.5M and 2M rows; SHORT and LONG override them), the same without the JIT compiler threads' CPU, the long run's whole CPU
# per row ("cold"), its heap allocation per row and peak RSS, and the JIT's CPU seconds in the short/long runs.
#
# usage: [CLIENTS="official sluice floor"] compare/run.sh WORKLOAD ROUNDS [ENDPOINT]
#   e.g. compare/run.sh metrics 3 127.0.0.1:4101
# Needs ingester-bench/target/ingester-bench.jar (./mvnw install -DskipTests at the root; the two tools here build
# themselves on first use) and a server at ENDPOINT, e.g. the testkit in its own process:
#   java -Xmx4g -XX:MaxDirectMemorySize=4g --add-opens=java.base/java.nio=ALL-UNNAMED \
#     -cp ingester-bench/target/ingester-bench.jar dev.sluice.testkit.internal.Main --port 4101 --http-port 4100 --no-retain-rows
set -euo pipefail
cd "$(dirname "$0")"
WL=${1:-metrics}; ROUNDS=${2:-3}; EP=${3:-127.0.0.1:4101}
JVM=${JVM:-"-Xmx4g -XX:MaxDirectMemorySize=4g"}
# Every client JVM keeps all its JIT compiler threads: HotSpot otherwise retires an idle one, and the CPU it used
# would be missing from the JIT reading at the end of the run.
JVM="$JVM -XX:-UseDynamicNumberOfCompilerThreads"
if [ "$WL" = logs ]; then S0=500000; L0=2000000; BATCH=65536; PAR=4; else S0=1000000; L0=4000000; BATCH=1000; PAR=5; fi
SHORT=${SHORT:-$S0}; LONG=${LONG:-$L0}
BENCH=${BENCH:-../ingester-bench/target/ingester-bench.jar}
[ -f "$BENCH" ] || { echo "build the benchmark first: ./mvnw install -DskipTests" >&2; exit 2; }
CHOSEN=" ${CLIENTS:-official sluice} "
# Each tool here is built on first use, and only when a chosen client needs it.
OFFCP=
if [[ $CHOSEN == *" official"* ]]; then
  [ -f official-java/target/cp.txt ] || (cd official-java && ../../mvnw -B -ntp -q package \
    && ../../mvnw -B -ntp -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=runtime)
  # The official client's own dependencies, then just Sluice's data model classes (the workload's schema types).
  OFFCP=official-java/target/compare-official-java-0.1.0-SNAPSHOT.jar:$(cat official-java/target/cp.txt):../ingester-common/target/classes:../ingester-protocol/target/classes:../ingester-bulk/target/classes
fi
FLOOR=transport-floor/target/compare-transport-floor-0.1.0-SNAPSHOT.jar
if [[ $CHOSEN == *" floor"* || $CHOSEN == *" bulkfloor"* ]]; then
  [ -f $FLOOR ] || (cd transport-floor && ../../mvnw -B -ntp -q package)
fi

one() { # client rows -> the result line's fields
  local client=$1 rows=$2 line bench=$BENCH
  case $client in *@*) bench=${client#*@}; client=${client%%@*} ;; esac
  local api=objects
  case $client in *+typed) api=typed; client=${client%+typed} ;; esac
  if [ "$client" = bulkfloor ]; then
    line=$(java $JVM --add-opens=java.base/java.nio=ALL-UNNAMED -cp $FLOOR:$bench dev.sluice.bench.cost.BulkFloor $WL $rows \
      $BATCH $PAR $EP 2>/dev/null | grep '^sluice-cost-result')
  elif [ "$client" = sluicebulk ]; then
    line=$(java $JVM --add-opens=java.base/java.nio=ALL-UNNAMED -cp $bench dev.sluice.bench.cost.CostClient --workload $WL \
      --mode bulk --rows $rows --batch $BATCH --parallelism 1 --max-in-flight $PAR --endpoint $EP --row-api $api 2>/dev/null \
      | grep '^sluice-cost-result')
  elif [ "${client%%+*}" = workload ]; then
    local par=$PAR; [ "$client" = workload+bulk ] && par=1
    line=$(java $JVM -cp $bench dev.sluice.bench.cost.CostClient --workload $WL --mode workload --rows $rows --batch $BATCH \
      --parallelism $par --endpoint $EP --row-api $api 2>/dev/null | grep '^sluice-cost-result')
  elif [ "${client%%+*}" = floor ]; then
    line=$(java $JVM -cp $FLOOR:$BENCH dev.sluice.bench.cost.TransportFloor $WL $rows $BATCH $PAR $EP \
      "$(echo "${client#floor}" | sed 's/^+//; s/+/,/g')" 2>/dev/null | grep '^sluice-cost-result')
  elif [ "$client" = sluice ]; then
    line=$(java $JVM --add-opens=java.base/java.nio=ALL-UNNAMED -cp $bench dev.sluice.bench.cost.CostClient --workload $WL \
      --mode regular --rows $rows --batch $BATCH --parallelism $PAR --endpoint $EP --row-api $api 2>/dev/null | grep '^sluice-cost-result')
  else
    line=$(java $JVM -cp "$OFFCP" dev.sluice.bench.cost.OfficialCostClient $WL $rows $BATCH $PAR $EP 2>/dev/null | grep '^sluice-cost-result')
  fi
  echo "$line" | sed 's/sluice-cost-result //'
}

printf "%-30s %5s %10s %10s %8s %10s %9s %8s %10s\n" client round marginal no_jit cold alloc_B rss_MiB ok jit_s_s/l
for r in $(seq 1 "$ROUNDS"); do
  for client in ${CLIENTS:-official sluice}; do
    s=$(one $client $SHORT); l=$(one $client $LONG)
    awk -v s="$s" -v l="$l" -v c=$client -v r=$r -v sr=$SHORT -v lr=$LONG 'BEGIN {
      split(s, a, " "); for (i in a) { split(a[i], kv, "="); S[kv[1]] = kv[2] }
      split(l, b, " "); for (i in b) { split(b[i], kv, "="); L[kv[1]] = kv[2] }
      d = lr - sr
      m = (L["cpu_ns"] - S["cpu_ns"]) / d / 1000
      nj = ((L["cpu_ns"] - L["jit_cpu_ns"]) - (S["cpu_ns"] - S["jit_cpu_ns"])) / d / 1000
      cold = L["cpu_ns"] / lr / 1000
      ok = (S["acked"] == sr && L["acked"] == lr) ? "yes" : "NO"
      printf "%-30s %5d %10.2f %10.2f %8.2f %10d %9d %8s %5.2f/%.2f\n", c, r, m, nj, cold, L["alloc_bytes"] / lr,
        L["rss_kib"] / 1024, ok, S["jit_cpu_ns"] / 1e9, L["jit_cpu_ns"] / 1e9 }'
  done
done
