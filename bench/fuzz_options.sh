# Sourced by bench/fuzz_throughput.sh and bench/canary_detection.sh (needs ROOT set).
# option_flags TARGET: the libFuzzer flags of fuzz/options/TARGET.options ([libfuzzer] lines
# "name = value"), one per line, the dict resolved to fuzz/dictionaries/.
option_flags() {
  local file=$ROOT/fuzz/options/$1.options name value
  [[ -f $file ]] || return 0
  while IFS='=' read -r name value; do
    name=$(tr -d ' ' <<<"$name"); value=$(sed 's/^ *//; s/ *$//' <<<"$value")
    [[ -z $name || $name == \#* || $name == \[* || -z $value ]] && continue
    [[ $name == dict ]] && value=$ROOT/fuzz/dictionaries/$value
    echo "-$name=$value"
  done <"$file"
}
