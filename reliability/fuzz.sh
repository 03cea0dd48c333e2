#!/usr/bin/env bash
# Runs every fuzz target of the repository (each `func FuzzXxx` in a
# *_test.go file) for a short fixed time each, one after the other.
#
#	reliability/fuzz.sh          # 10s per target
#	reliability/fuzz.sh 1m       # longer, by hand
#
# Minimisation of a new interesting input is capped at 50 runs: the history
# seeds are a dozen kilobytes, and minimising one with the default 60s cap
# would eat a short run whole. A crash fails the script and leaves the input
# in the package's testdata/fuzz/FuzzXxx directory, as `go test -fuzz` does;
# the other targets still run, and the script fails at the end naming the
# targets that crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${1:-10s}"
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
