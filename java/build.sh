#!/usr/bin/env bash
# Build the book's Java module: resolve Kafka's jars from Maven Central and compile the oracle.
#   java/build.sh                 the pinned release (kafka.version of java/pom.xml), ADMINUTILS_RELEASE and
#                                 KAFKA_3_RELEASE (src/rebalance/versions.py), and the pinned release's broker
#                                 (java/target/broker-RELEASE, for rebalance.kafka.cluster)
#   java/build.sh 4.0.0 ...       other releases' classpaths too (java/target/lib-RELEASE)
# Needs Java 17+ and Maven 3.6+; says which one is missing in one line.  Idempotent and quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")"

need() { echo "The Java module needs $1: $2" >&2; exit 3; }
command -v java >/dev/null || need "Java 17 or newer" "apt-get install openjdk-17-jdk-headless (macOS: brew install openjdk@17), or set JAVA_HOME"
command -v javac >/dev/null || need "a JDK (javac), not only a JRE" "apt-get install openjdk-17-jdk-headless"
major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
[ "${major%%.*}" -ge 17 ] 2>/dev/null || need "Java 17 or newer (found ${major:-unknown})" "apt-get install openjdk-17-jdk-headless, or set JAVA_HOME"
command -v mvn >/dev/null || need "Maven" "apt-get install maven (macOS: brew install maven)"

pinned=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' pom.xml)
adminutils=$(sed -n 's/^ADMINUTILS_RELEASE = "\(.*\)"$/\1/p' ../src/rebalance/versions.py)
kafka3=$(sed -n 's/^KAFKA_3_RELEASE = "\(.*\)"$/\1/p' ../src/rebalance/versions.py)
log=target/build.log
mkdir -p target
run_mvn() {  # Maven's output goes to the log, shown only when a step fails
  if ! mvn -B --no-transfer-progress "$@" >"$log" 2>&1; then
    grep -E "ERROR|BUILD" "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -40 >&2
    echo "java: Maven failed (mvn $*); full log in java/$log" >&2
    exit 1
  fi
}

stamp=target/.built
inputs=$(find pom.xml build.sh src -type f -newer "$stamp" 2>/dev/null | head -1 || true)
if [ -f "$stamp" ] && [ -z "$inputs" ] && [ $# -eq 0 ]; then
  exit 0
fi
echo "java: resolving Kafka $pinned (the oracle's jars and the broker's), $adminutils and $kafka3 from Maven Central and compiling the oracle"
fresh_pom=$([ ! -f "$stamp" ] || [ pom.xml -nt "$stamp" ] && echo yes || true)
for release in "$pinned" "$adminutils" "$kafka3" "$@"; do
  # a changed pom may drop a jar: start that classpath afresh; otherwise the copy only adds what is missing
  [ -z "$fresh_pom" ] || rm -rf "target/lib-$release"
  run_mvn -Dkafka.version="$release" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="target/lib-$release"
  # the released sources, which the book cites by line (tests/test_kafka_source_refs.py reads them)
  mvn -B -q --no-transfer-progress -Dkafka.version="$release" dependency:copy-dependencies -Dclassifier=sources \
    -DincludeGroupIds=org.apache.kafka -DoutputDirectory="target/src-$release" >/dev/null 2>&1 \
    || echo "java: no -sources jars for Kafka $release (the source-reference test skips that release)"
done
# the broker's Scala sources, which the book also cites (KafkaConfig, the Scala group coordinator, AdminZkClient)
for release in "$pinned" "$kafka3"; do
  mvn -B -q --no-transfer-progress dependency:get -Dtransitive=false \
    -Dartifact="org.apache.kafka:kafka_2.13:$release:jar:sources" >/dev/null 2>&1 \
    || echo "java: no kafka_2.13 -sources jar for Kafka $release (the source-reference test skips its references)"
done
# the broker's classpath (the pom's `broker` profile: kafka_2.13 and log4j2, apart from the oracle's jars), which
# rebalance.kafka.cluster runs as a KRaft cluster on 127.0.0.1
[ -z "$fresh_pom" ] || rm -rf "target/broker-$pinned"
run_mvn -Dbroker -Dkafka.version="$pinned" dependency:copy-dependencies -DincludeScope=runtime \
  -DoutputDirectory="target/broker-$pinned"
# compiled against exactly the pinned release's runtime classpath (Kafka publishes some of its own modules,
# e.g. kafka-group-coordinator-api, as runtime dependencies only, so Maven's compile classpath lacks them)
rm -rf target/classes target/rebalance.jar target/cds   # the jar and its class-data archives go with the classes
mkdir -p target/classes
find src/main/java -name '*.java' > target/sources.txt
if ! javac --release 17 -encoding UTF-8 -Xlint:deprecation -nowarn -d target/classes -cp "target/lib-$pinned/*" @target/sources.txt 2>"$log"; then
  cat "$log" >&2
  echo "java: the oracle does not compile against Kafka $pinned" >&2
  exit 1
fi
# resources (the service file through which Connect workers find the book's IdleSourceConnector on the classpath)
[ ! -d src/main/resources ] || cp -R src/main/resources/. target/classes/
# the same classes as one jar: a classpath of jars only can use a class-data archive (rebalance.kafka.class_data)
jar --create --file target/rebalance.jar -C target/classes .
touch "$stamp"
echo "java: ready (Kafka $pinned: $(ls target/lib-$pinned | wc -l) jars; its broker: $(ls target/broker-$pinned | wc -l) jars)"
