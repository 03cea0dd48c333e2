#!/usr/bin/env bash
# Runs every fuzz target of the repository (each `func FuzzXxx` in a
# *_test.go file) for a fixed number of executions each, one after the other.
#
#	reliability/fuzz.sh              # 20,000 executions per target
#	reliability/fuzz.sh 500000x      # more, by hand
#	reliability/fuzz.sh 1m           # a wall-clock budget, by hand
#
# The budget is a count by default because a wall-clock -fuzztime races Go's
# fuzzing coordinator (go.dev/issue/75804, fixed in Go 1.27): when the
# deadline fires while a worker is mid-execution, the target fails with
# "context deadline exceeded" and no failing input. A count sets no deadline,
# so a busy machine makes the run slower, never red. A duration is still
# accepted by hand; the script warns that it can fail that way.
#
# Minimisation of a new interesting input is capped at 50 runs, a count too:
# the history seeds are a dozen kilobytes, and minimising one with the default
# 60s cap could add a minute per new input to a short run. A crash fails the
# script and leaves the input in the package's testdata/fuzz/FuzzXxx
# directory, as `go test -fuzz` does; the other targets still run, and the
# script fails at the end naming the targets that crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${1:-20000x}"
case "$fuzztime" in
*x) ;;
*) echo "fuzz.sh: a wall-clock budget ($fuzztime) can fail with \"context deadline exceeded\" and no input (go.dev/issue/75804); a count such as 20000x cannot" >&2 ;;
esac
count=0
failed=()
while IFS= read -r file; do
	pkg="./$(dirname "$file")"
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		printf '== %s %s (%s)\n' "$pkg" "$target" "$fuzztime"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 50x "$pkg"; then
			failed+=("$pkg $target")
		fi
		count=$((count + 1))
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sed 's|^\./||' | sort)

if [ "$count" -eq 0 ]; then
	echo "fuzz.sh: no fuzz target found" >&2
	exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
	printf 'fuzz.sh: %d of %d targets crashed:\n' "${#failed[@]}" "$count" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz.sh: $count targets, $fuzztime each: no crash"
