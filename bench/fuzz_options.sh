# shellcheck shell=bash
# Sourced by bench/fuzz_throughput.sh and bench/fuzz_floor.sh (needs
# ROOT set).
# option_flags TARGET [OPTIONS_DIR]: the libFuzzer flags of OPTIONS_DIR/TARGET.options (default
# fuzz/options of this tree; the "name = value" lines of its [libfuzzer] section, '#' or ';'
# starting a comment), one per line, the dict resolved to the dictionaries/ folder next to
# OPTIONS_DIR.
option_flags() {
  local dir=${2:-$ROOT/fuzz/options}
  local file=$dir/$1.options name value section=""
  [[ -f $file ]] || return 0
  while IFS='=' read -r name value; do
    name=$(tr -d ' ' <<<"$name"); value=$(sed 's/[#;].*//; s/^ *//; s/ *$//' <<<"$value")
    [[ $name == \[* ]] && section=$name
    [[ -z $name || $name == \#* || $name == \[* || -z $value || $section != "[libfuzzer]" ]] && continue
    [[ $name == dict ]] && value=$(dirname "$dir")/dictionaries/$value
    echo "-$name=$value"
  done <"$file"
}

# declared_flavours: the flavours of cmake/flavours.list as the build reads them ("name: keys
# # comment" lines), one per line.
declared_flavours() { sed -nE 's/^([a-z_0-9]+):.*/\1/p' "$ROOT/cmake/flavours.list"; }
