#!/usr/bin/env bash
# Model-check the Redis store protocol (model/store.pml) and one attempt's lease against the
# store's clock (model/lease.pml) with spin: each model must keep every property in every
# configuration below, and each broken variant must be caught with a counterexample that
# breaks the property it is kept for. Exits non-zero otherwise.
#
#   bash model/check.sh            check (one to two minutes on two cores)
#   bash model/check.sh --record   also rewrite model/counterexamples/ from the new trails
#   bash model/check.sh --deep     also the largest configuration (17 million states, about
#                                  two minutes and 2.6 GB more)
#
# Needs spin and a C compiler (apt-get install spin gcc).
set -euo pipefail

model_dir="$(cd "$(dirname "$0")" && pwd)"
record=false
deep=false
for arg in "$@"; do
	case "$arg" in
	--record) record=true ;;
	--deep) deep=true ;;
	*) echo "usage: bash model/check.sh [--record] [--deep]"; exit 2 ;;
	esac
done
limit="${MODEL_CHECK_TIMEOUT:-300}"   # seconds, per run
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$model_dir/store.pml" "$model_dir/lease.pml" "$work/"
cd "$work"
failures=0
model=store.pml   # the model the functions below check

# pan: build the verifier for the given spin -D flags and C flags.
pan() {
	local defines="$1" cflags="$2"
	rm -f pan pan.c "$model.trail"
	# shellcheck disable=SC2086
	spin $defines -a "$model" >spin.out || { cat spin.out; return 1; }
	# shellcheck disable=SC2086
	gcc -O2 -w $cflags -o pan pan.c
}

report() {
	grep -E "^State-vector|states, stored|pan: elapsed time" pan.out | sed 's/^/    /' || true
}

# holds NAME DEFINES CFLAGS PANFLAGS: exhaustive search, no error allowed.
holds() {
	local name="$1" defines="$2" cflags="$3" panflags="$4"
	echo "== $name: spin $defines, gcc $cflags, pan $panflags"
	pan "$defines" "$cflags"
	# shellcheck disable=SC2086
	if ! timeout "$limit" ./pan $panflags >pan.out 2>&1; then
		echo "   FAILED: pan did not finish within ${limit}s or failed"; tail -5 pan.out; failures=$((failures + 1)); return
	fi
	report
	# Exhaustive only: a bitstate or hash-compacted search, or one cut short, proves nothing
	if grep -q "errors: 0" pan.out && grep -q "Full statespace search" pan.out \
		&& ! grep -qE "Search not completed|max search depth too small|out of memory" pan.out; then
		echo "   holds (exhaustive)"
	else
		echo "   FAILED: expected no error"
		# shellcheck disable=SC2086
		spin -T $defines -t "$model" | sed 's/^/      /' | head -80
		failures=$((failures + 1))
	fi
}

# caught NAME DEFINES CFLAGS PANFLAGS EXPECTED: the search must find an error, and the
# trail must show EXPECTED; the shortest trail is kept in model/counterexamples/.
caught() {
	local name="$1" defines="$2" cflags="$3" panflags="$4" expected="$5"
	echo "== $name (must fail): spin $defines, gcc $cflags, pan $panflags"
	pan "$defines" "$cflags"
	# shellcheck disable=SC2086
	timeout "$limit" ./pan $panflags >pan.out 2>&1 || true
	report
	# shellcheck disable=SC2086
	if [[ -f "$model.trail" ]] && spin -T $defines -t "$model" >trail.txt 2>&1 && grep -q -- "$expected" trail.txt; then
		echo "   caught: $expected"
		if $record; then
			{
				echo "# found by: spin $defines -a $model; gcc $cflags -o pan pan.c; ./pan $panflags"
				echo "# replay from the repository root:"
				echo "#   spin -T $defines -t -k model/counterexamples/$name.trail model/$model"
				sed -E '/^#processes:/,$d' trail.txt
			} >"$model_dir/counterexamples/$name.txt"
			cp "$model.trail" "$model_dir/counterexamples/$name.trail"
		fi
	else
		echo "   FAILED: expected a counterexample showing '$expected'"
		[[ -f trail.txt ]] && head -60 trail.txt
		failures=$((failures + 1))
	fi
}

command -v spin >/dev/null || { echo "spin not found: apt-get install spin"; exit 2; }
command -v gcc >/dev/null || { echo "gcc not found: apt-get install gcc"; exit 2; }
start=$SECONDS

# The protocol as the scripts implement it: safety properties P1-P4, P6 as assertions.
holds "three workers, two lost replies, two crashes" "" "-DCOLLAPSE" "-m10000"
holds "two workers with two attempts each, three lost replies, one crash" \
	"-DN=2 -DMAXTOK=2 -DMAXLOST=3 -DMAXCRASH=1" "-DCOLLAPSE" "-m10000"
holds "a lease longer than retention" "-DLEASE=3 -DRET=1" "-DCOLLAPSE" "-m10000"
if $deep; then
	holds "three workers with two attempts each, two lost replies, one crash" \
		"-DMAXTOK=2 -DMAXLOST=2 -DMAXCRASH=1" "-DCOLLAPSE" "-m10000"
fi
# P5 under weak fairness: worker 0 never crashes and hears its acquire replies.
holds "liveness, three workers" "-DLIVENESS" "-DCOLLAPSE -DNFAIR=3" "-m10000 -a -f"
holds "liveness by takeover alone (records never expire in progress)" "-DLIVENESS -DNO_EXPIRY" \
	"-DCOLLAPSE -DNFAIR=3" "-m10000 -a -f"

# Broken variants: each must be caught (pan -i: the shortest trail).
caught no-owner-check "-DNO_OWNER_CHECK" "-DREACH" "-i" "VIOLATED P4"
caught fence-only-check "-DNO_TOKEN_CHECK" "-DREACH" "-i" "VIOLATED P4"
caught skewed-clock "-DSKEW=1" "-DREACH" "-i" "VIOLATED P6"
caught pre-hardening-expiry "-DPREHARDEN" "-DREACH" "-i" "VIOLATED P3 fence did not rise"
caught no-recovery "-DLIVENESS -DNO_RECOVERY" "-DNFAIR=3" "-a -f" "START OF CYCLE"
caught no-takeover "-DLIVENESS -DNO_EXPIRY -DNO_TAKEOVER" "-DNFAIR=3" "-a -f" "START OF CYCLE"

# One attempt's lease against the store's clock: L1 and L2 as assertions (a second or two).
model=lease.pml
holds "lease: renewals planned from the grant, a margin before the method" "" "" "-m10000"
caught lease-renew-from-start "-DRENEW_FROM_START" "-DREACH" "-i" "VIOLATED L1"
caught lease-no-margin "-DNO_MARGIN" "-DREACH" "-i" "VIOLATED L1"
# PAUSE = MARGIN (4 ticks of a 12-tick lease): the bound PAUSE < MARGIN is tight
caught lease-pause-at-margin "-DPAUSE=4" "-DREACH" "-i" "VIOLATED L1"
caught lease-believed-from-reply "-DBELIEVE_FROM_REPLY" "-DREACH" "-i" "VIOLATED L2"

echo "model check: $((SECONDS - start))s, $failures unexpected result(s)"
[[ $failures -eq 0 ]]
