# bash completion for ttrace: commands, each command's options (from its --help), hook
# names of the trace named on the line (`ttrace dump --names`), lesson numbers and names.
_ttrace_commands() {
  "$1" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  *.*/\1/p'
}

_ttrace_options() {
  "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

_ttrace_lessons() {
  "$1" lesson --list 2>/dev/null | awk '/^  [0-9]/ { n = $1; sub(/-.*/, "", n); print n + 0; print $1 }' | sort -u
}

_ttrace() {
  local cur prev exe cmd trace i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  exe=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$(_ttrace_commands "$exe") --help --version" -- "$cur"))
    return
  fi
  cmd=${COMP_WORDS[1]}
  case "$prev" in
    -o|--out|--output|--svg|-m|--traces|--model)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
    --lang) COMPREPLY=($(compgen -W "en ko both" -- "$cur")); return ;;
    --theme) COMPREPLY=($(compgen -W "light dark" -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_ttrace_options "$exe" "$cmd")" -- "$cur"))
    return
  fi
  # The trace file already on the line, if any.
  trace=
  for ((i = 2; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in *.safetensors) [ -f "${COMP_WORDS[i]}" ] && trace=${COMP_WORDS[i]} ;; esac
  done
  case "$cmd" in
    dump|render|view)
      if [ -n "$trace" ] && { [ "$cmd" = dump ] || [ "$prev" = --step ]; }; then
        COMPREPLY=($(compgen -W "$("$exe" dump --names "$trace" 2>/dev/null)" -- "$cur"))
        return
      fi ;;
    lesson|export-html)
      if [[ "$cur" != */* && "$cur" != .* ]]; then
        COMPREPLY=($(compgen -W "$(_ttrace_lessons "$exe")" -- "$cur") $(compgen -f -X '!*.@(lesson|safetensors)' -- "$cur"))
        [ ${#COMPREPLY[@]} -gt 0 ] && return
      fi ;;
  esac
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _ttrace ttrace
