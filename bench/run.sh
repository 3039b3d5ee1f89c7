#!/usr/bin/env bash
# The "Foundation" benchmark: kibitz check throughput against a floor and
# python-chess, and kibitz lsp latency and memory on a ~20 MB document.
# One command from the repository root or anywhere: bench/run.sh
# SKIP_PYTHON=1 skips the python-chess step (it takes minutes).
set -euo pipefail

start_time=$SECONDS
cd "$(dirname "$0")/.."
OUT=bench/out
BIN=${CARGO_TARGET_DIR:-target}/release
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*" >&2; }
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }
# Floating-point arithmetic: calc '<awk expression>' (two decimals).
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
# Value of `key value` line KEY in FILE.
get() { awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) exit 1 }' "$2" || fail "no '$1' in $2"; }
# is '<awk condition>': succeeds when it holds; pass_if: PASS or MISS.
is() { awk "BEGIN { exit !($1) }"; }
pass_if() { if is "$1"; then echo PASS; else echo MISS; fi; }

# Cores kept busy by other processes during one second (from /proc/stat).
# Timings are only meaningful when this is near 0: with 2 cores, one busy
# neighbour halves what --jobs 2 can show.
busy_cores() {
    { head -1 /proc/stat; sleep 1; head -1 /proc/stat; } | awk -v n="$(nproc)" '
        { idle[NR] = $5 + $6; total[NR] = 0; for (i = 2; i <= 9; i++) total[NR] += $i }
        END { printf "%.2f", n * (1 - (idle[2] - idle[1]) / (total[2] - total[1])) }'
}
# note_busy WHAT [WAIT]: waits up to WAIT seconds for the other load to drop
# below 0.2 cores, then records it. Called before each timed part (waiting
# $QUIET_WAIT, default 60 s) and after it (not waiting), since a neighbour
# may start in the middle.
busy_max=0
note_busy() {
    local b deadline=$((SECONDS + ${2:-0}))
    b=$(busy_cores)
    while is "$b >= 0.2" && ((SECONDS < deadline)); do b=$(busy_cores); done
    echo "other load $1: $b cores busy" >&2
    if is "$b > $busy_max"; then busy_max=$b; fi
}

# time_once KEY CMD...: runs CMD once, its stdout to $OUT/KEY.out, and keeps
# the best wall time per KEY in best[KEY] (ns). Best, not mean: the noise
# here (other processes, a busy host, page cache) only ever adds time.
declare -A best
time_once() {
    local key=$1 t0 t1
    shift
    t0=$(date +%s%N)
    "$@" >"$OUT/$key.out" || { cat "$OUT/$key.out" >&2; fail "failed: $*"; }
    t1=$(date +%s%N)
    if [[ -z ${best[$key]:-} ]] || ((t1 - t0 < best[$key])); then best[$key]=$((t1 - t0)); fi
}
secs() { awk -v ns="${best[$1]}" 'BEGIN { printf "%.3f", ns / 1e9 }'; }

step "build (release)"
cargo build --release -p kibitz -p kibitz-bench

step "inputs (cached in $OUT, regenerated only when missing)"
BIG=$OUT/games-100k-seed1.sgs
DOC=$OUT/doc-20mb-seed2.sgs
[[ -f $BIG ]] || "$BIN/gen" --seed 1 --games 100000 --out "$BIG"
[[ -f $DOC ]] || "$BIN/gen" --seed 2 --max-bytes 20000000 --out "$DOC"
ls -l "$BIG" "$DOC" >&2

note_busy "before the check timings" "${QUIET_WAIT:-60}"
ROUNDS=${ROUNDS:-3}
step "floor, kibitz check --jobs 1, --jobs 2: $ROUNDS interleaved rounds, best of each"
# Interleaved so that a slow spell of the host hurts all three alike and
# the ratios stay honest.
for round in $(seq "$ROUNDS"); do
    time_once floor "$BIN/floor" "$BIG"
    time_once jobs1 "$BIN/kibitz" check --jobs 1 "$BIG"
    time_once jobs2 "$BIN/kibitz" check --jobs 2 "$BIG"
    echo "round $round: floor $(secs floor) s, jobs 1 $(secs jobs1) s, jobs 2 $(secs jobs2) s (best so far)" >&2
done
for key in jobs1 jobs2; do
    grep -qx '0 errors, 0 warnings in 1 file' "$OUT/$key.out" || { cat "$OUT/$key.out" >&2; fail "kibitz check found problems in the generated file"; }
done
floor_s=$(secs floor) j1_s=$(secs jobs1) j2_s=$(secs jobs2)
games=$(get games "$OUT/floor.out")
plies=$(get plies "$OUT/floor.out")
bytes=$(get bytes "$OUT/floor.out")
mb=$(calc "$bytes / 1e6")

note_busy "after the check timings"
note_busy "before the LSP run" "${QUIET_WAIT:-60}"
step "kibitz lsp on $DOC"
"$BIN/lsp-latency" --kibitz "$BIN/kibitz" --doc "$DOC" --edits 200 --queries 200 --seed 7 >"$OUT/lsp.out"
cat "$OUT/lsp.out" >&2
note_busy "after the LSP run"
lsp() { get "$1" "$OUT/lsp.out"; }
doc_mb=$(lsp doc_mb)
rss_budget=$(calc "3 * $doc_mb + 50")

if [[ ${SKIP_PYTHON:-0} == 1 ]]; then
    py_row="| python-chess (push_uci), 1 thread | skipped (SKIP_PYTHON=1) | | |"
else
    step "python-chess (one run; takes minutes)"
    VENV=.venv-bench
    if ! "$VENV/bin/python" -c 'import chess' 2>/dev/null; then
        python3 -m venv "$VENV" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
        "$VENV/bin/pip" install --quiet 'chess==1.11.2' || fail "pip install chess failed"
    fi
    time_once python "$VENV/bin/python" bench/python_chess_check.py "$BIG"
    py_s=$(secs python)
    [[ $(get plies "$OUT/python.out") == "$plies" ]] || fail "python-chess replayed a different number of plies"
    py_row="| python-chess (push_uci), 1 thread | ${py_s} s · $(calc "$mb / $py_s") MB/s · $(calc "$plies / $py_s / 1e6") M plies/s | | kibitz --jobs 1 is **$(calc "$py_s / $j1_s")×** faster |"
fi

mbps() { calc "$mb / $1"; }
mplies() { calc "$plies / $1 / 1e6"; }
j1_vs_floor=$(calc "$j1_s / $floor_s")
speedup=$(calc "$j1_s / $j2_s")
busy_warning=""
if is "$busy_max > 0.2"; then
    busy_warning="**Warning: other processes kept up to $busy_max of the $(nproc) cores busy around the timings: the figures are pessimistic, the --jobs 2 speedup most of all.**

"
fi
results=$(
    cat <<TABLE
# kibitz benchmark results

$(date -u '+%Y-%m-%d %H:%M UTC') · commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo ' (src modified)') · $(nproc) cores · $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)

${busy_warning}Check input: \`$BIG\`, $games games, $plies plies, $mb MB. Times are the best wall time of $ROUNDS interleaved rounds (python: one run).

| Measure | Result | Target | Verdict |
| --- | --- | --- | --- |
| floor (split lines + shakmaty replay), 1 thread | ${floor_s} s · $(mbps "$floor_s") MB/s · $(mplies "$floor_s") M plies/s | | |
| \`kibitz check --jobs 1\` | ${j1_s} s · $(mbps "$j1_s") MB/s · $(mplies "$j1_s") M plies/s | ≤ 1.3× floor | ${j1_vs_floor}× floor: $(pass_if "$j1_vs_floor <= 1.3") |
| \`kibitz check --jobs 2\` | ${j2_s} s · $(mbps "$j2_s") MB/s · $(mplies "$j2_s") M plies/s | ≥ 1.7× jobs 1 | ${speedup}× jobs 1: $(pass_if "$speedup >= 1.7") |
$py_row
| LSP: open ${doc_mb} MB → first diagnostics | $(lsp open_ms) ms | | |
| LSP: edit → diagnostics (200 edits) | p50 $(lsp edit_p50_ms) ms · p99 $(lsp edit_p99_ms) ms · max $(lsp edit_max_ms) ms | p50 ≤ 5, p99 ≤ 20 ms | $(pass_if "$(lsp edit_p50_ms) <= 5 && $(lsp edit_p99_ms) <= 20") |
| LSP: hover on a move (200) | p50 $(lsp hover_p50_ms) ms · p99 $(lsp hover_p99_ms) ms · max $(lsp hover_max_ms) ms | p99 ≤ 5 ms | $(pass_if "$(lsp hover_p99_ms) <= 5") |
| LSP: completion in moves (200) | p50 $(lsp completion_p50_ms) ms · p99 $(lsp completion_p99_ms) ms · max $(lsp completion_max_ms) ms | p99 ≤ 5 ms | $(pass_if "$(lsp completion_p99_ms) <= 5") |
| LSP: peak RSS (VmHWM) | $(lsp peak_rss_mb) MB | ≤ 3 × ${doc_mb} + 50 = ${rss_budget} MB | $(pass_if "$(lsp peak_rss_mb) <= $rss_budget") |
| LSP: shutdown + exit | exit status 0: $(lsp clean_exit) | clean | $([[ $(lsp clean_exit) == yes ]] && echo PASS || echo MISS) |

bench/run.sh took $((SECONDS - start_time)) s.
TABLE
)
printf '%s\n' "$results" >"$OUT/results.md"
printf '\n%s\n\n(written to %s)\n' "$results" "$OUT/results.md"
