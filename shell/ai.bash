# swebash-ai: shell integration for bash 4+. Load it with:  eval "$(ai --init bash)"
# Press Alt-E (or the key given to --init --key) on a typed request: the line is sent to
# `ai --command` and replaced by the suggested command, never run (one ai would ask for or deny
# comes with a warning). Ctrl-C or a failure gives the typed line back exactly. Sourcing it
# twice is harmless.

__ai_widget() {
  local __ai_orig=$READLINE_LINE __ai_out __ai_status __ai_trap __ai_errf __ai_why=""
  [[ -n ${__ai_orig//[[:space:]]/} ]] || return 0
  printf '\r\e[K%s' "${__ai_orig} [ai…]" >/dev/tty 2>/dev/null
  # Ctrl-C stops ai (it gets the signal) but must not abort the line we are about to restore.
  __ai_trap=$(trap -p INT)
  trap ':' INT
  __ai_errf=$(mktemp 2>/dev/null) || __ai_errf=/dev/null
  __ai_out=$(command ai --command --shell bash "$__ai_orig" </dev/null 2>"$__ai_errf")
  __ai_status=$?
  eval "${__ai_trap:-trap - INT}"
  if [[ $__ai_errf != /dev/null ]]; then
    # The first line says why it failed, or warns about the command (the rest is a hint):
    # shown above the line, not lost.
    IFS= read -r __ai_why <"$__ai_errf"
    rm -f -- "$__ai_errf"
  fi
  printf '\r\e[K' >/dev/tty 2>/dev/null
  if ((__ai_status == 0)) && [[ -n $__ai_out ]]; then
    READLINE_LINE=$__ai_out
  else
    READLINE_LINE=$__ai_orig
  fi
  [[ -n $__ai_why ]] && printf '%s\n' "$__ai_why" >/dev/tty 2>/dev/null
  READLINE_POINT=${#READLINE_LINE}
}

if [[ $- == *i* ]] && ((BASH_VERSINFO[0] >= 4)); then
  bind -x '"__AI_KEY__": __ai_widget'
fi
