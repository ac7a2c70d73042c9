#!/usr/bin/env bash
# A tiny xUnit-style harness testing a few string and math helpers.
set -uo pipefail

# --- code under test --------------------------------------------------------
slugify() { local s=${1,,}; s=${s//[^a-z0-9]/-}; s=$(tr -s '-' <<<"$s"); s=${s#-}; echo "${s%-}"; }
is_palindrome() { local s=${1,,}; s=${s//[^a-z0-9]/}; [[ $s == "$(rev <<<"$s")" ]]; }
gcd() { local a=$1 b=$2; while (( b )); do (( a %= b )); local t=$a; a=$b; b=$t; done; echo "$a"; }
count_args() { echo $#; }
# ---------------------------------------------------------------------------

pass=0 fail=0 current=""
assert_eq() {
    if [[ $1 == "$2" ]]; then (( ++pass ))
    else (( ++fail )); printf '    FAIL in %s: expected [%s] got [%s]\n' "$current" "$2" "$1"; fi
}
assert_true()  { if "$@"; then (( ++pass )); else (( ++fail )); echo "    FAIL in $current: '$*' was false"; fi; }
assert_false() { if "$@"; then (( ++fail )); echo "    FAIL in $current: '$*' was true"; else (( ++pass )); fi; }

test_slugify() {
    assert_eq "$(slugify 'Hello, World!')" "hello-world"
    assert_eq "$(slugify '  Bash # Tips & Tricks  ')" "bash-tips-tricks"
    assert_eq "$(slugify 'already-a-slug')" "already-a-slug"
}
test_palindrome() {
    assert_true  is_palindrome "A man, a plan, a canal: Panama"
    assert_true  is_palindrome "racecar"
    assert_false is_palindrome "bash"
}
test_gcd() {
    assert_eq "$(gcd 48 18)" 6
    assert_eq "$(gcd 17 5)" 1
    assert_eq "$(gcd 0 9)" 9
}
test_count_args() {
    local -a arr=("a b" c "" d)
    assert_eq "$(count_args "${arr[@]}")" 4
    assert_eq "$(count_args ${arr[@]})" 4      # unquoted: "a b" splits, "" vanishes
    assert_eq "$(count_args)" 0
    assert_eq "${#arr[@]}" 4
}

run_tests() {
    local t before
    for t in $(declare -F | awk '{ print $3 }' | grep '^test_' | sort); do
        current=$t before=$fail
        "$t"
        (( fail == before )) && echo "  ok    $t" || echo "  FAIL  $t"
    done
}

echo "running tests"
run_tests
echo "$pass assertions passed, $fail failed"
(( fail == 0 ))
