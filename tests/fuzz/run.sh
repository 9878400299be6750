#!/bin/sh
# run.sh - run the libFuzzer harnesses of tests/fuzz for a bounded time each (make fuzz, make fuzz-ci).
#
#   tests/fuzz/run.sh [--ci] --bin DIR --seconds N NAME...
#
# For each NAME, DIR/fuzz_NAME first replays every input in
# tests/fuzz/regress/NAME/ (and, with --ci, every seed in tests/fuzz/corpus/NAME/)
# once, then fuzzes for N seconds from the seeds. New inputs go to
# DIR/corpus-NAME; the committed directories are only read. A crash, leak,
# timeout or out-of-memory stops that harness: its log is shown with the
# reproducer's path, the others still run, and the exit status is 1.
set -u

ci=0
bin=""
seconds=""
while [ $# -gt 0 ]; do
	case "$1" in
	--ci) ci=1; shift ;;
	--bin) bin="$2"; shift 2 ;;
	--seconds) seconds="$2"; shift 2 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ -z "$bin" ] || [ -z "$seconds" ] || [ $# -eq 0 ]; then
	echo "usage: tests/fuzz/run.sh [--ci] --bin DIR --seconds N NAME..." >&2
	exit 2
fi

here=$(dirname "$0")
# Per input: a bounded time and memory; the harnesses abort() on a broken invariant.
flags="-timeout=10 -rss_limit_mb=2048 -print_final_stats=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
failed=""

# Print why NAME failed, from its log, and the command that reproduces it.
report() {
	name=$1 log=$2
	echo "---- $log (last 60 lines)"
	tail -n 60 "$log"
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	# A replayed input that fails is named by the last "Running:" line.
	[ -z "$unit" ] && unit=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
	echo "fuzz $name: FAILED"
	if [ -n "$unit" ]; then
		echo "fuzz $name: reproducer: $unit"
		echo "fuzz $name: reproduce with: $bin/fuzz_$name $unit"
		case "$unit" in
		*/regress/*) ;;
		*) echo "fuzz $name: keep it as a regression test: cp $unit tests/fuzz/regress/$name/" ;;
		esac
	fi
	failed="$failed $name"
}

for name in "$@"; do
	exe="$bin/fuzz_$name"
	seeds="$here/corpus/$name"
	regress="$here/regress/$name"
	corpus="$bin/corpus-$name"
	artifacts="$bin/artifacts/$name/"
	log="$bin/$name.log"
	dict=""
	[ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
	mkdir -p "$corpus" "$artifacts"

	# Replay the inputs that must never crash again (and, for CI, every seed).
	replay=""
	[ -d "$regress" ] && replay=$(find "$regress" -type f ! -name 'README*' | sort)
	[ $ci = 1 ] && [ -d "$seeds" ] && replay="$replay $(find "$seeds" -type f | sort)"
	count=$(echo "$replay" | wc -w)
	if [ "$count" -gt 0 ]; then
		# shellcheck disable=SC2086
		if ! "$exe" $flags -artifact_prefix="$artifacts" $replay > "$log" 2>&1; then
			report "$name" "$log"
			continue
		fi
		echo "fuzz $name: replayed $count inputs"
	fi

	start=$(date +%s)
	# shellcheck disable=SC2086
	if ! "$exe" $flags $dict -max_total_time="$seconds" -artifact_prefix="$artifacts" \
		"$corpus" "$seeds" > "$log" 2>&1; then
		report "$name" "$log"
		continue
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(sed -n "s/^#[0-9]*[[:space:]]*DONE[[:space:]]*cov: *\([0-9]*\).*/\1/p" "$log")
	echo "fuzz $name: ok, $runs inputs in $(( $(date +%s) - start )) s, coverage $cov," \
		"$(find "$corpus" -type f | wc -l) in $corpus"
done

if [ -n "$failed" ]; then
	echo "fuzz: FAILED:$failed (logs in $bin/NAME.log)"
	exit 1
fi
echo "fuzz: all $# harnesses ok"
