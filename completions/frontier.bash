# bash completion for frontier: installed as
# <prefix>/share/bash-completion/completions/frontier; from a checkout,
# `source completions/frontier.bash`.
#
# Commands, subcommands and flags are read from the binary's own --help (one
# source of truth: a flag added to a command completes without touching this
# file); anything else completes as a file name.

_frontier_words() {
  # $1: the binary; the rest: the command path (e.g. "db export").
  # Prints the commands (top level), or the subcommands and long flags.
  local bin=$1; shift
  if [ $# -eq 0 ]; then
    "$bin" --help 2>/dev/null | sed -n '/^commands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'
    return
  fi
  local help
  help=$("$bin" "$@" --help 2>/dev/null) || true
  printf '%s\n' "$help" | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'
  printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_frontier() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local bin=${COMP_WORDS[0]}
  command -v "$bin" >/dev/null 2>&1 || bin=frontier
  # The command path typed so far: words before the cursor that are neither
  # flags nor a flag's value (a word after a flag that takes one).
  local path=() i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case "$w" in
      -*) break ;;
      *) path+=("$w") ;;
    esac
  done
  if [[ "$cur" == -* || ${#path[@]} -eq 0 || ${#path[@]} -eq $((COMP_CWORD - 1)) ]]; then
    local words
    words=$(_frontier_words "$bin" "${path[@]}")
    if [ -n "$words" ]; then
      mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
      [ ${#COMPREPLY[@]} -gt 0 ] && return 0
    fi
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -o filenames -F _frontier frontier
