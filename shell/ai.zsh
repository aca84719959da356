# swebash-ai: shell integration for zsh. Load it with:  eval "$(ai --init zsh)"
# Press Alt-E (or the key given to --init --key) on a typed request: the line is sent to
# `ai --command` and replaced by the suggested command, never run (one ai would ask for or deny
# comes with a warning). Ctrl-C or a failure gives the typed line back exactly. Sourcing it
# twice is harmless.

__ai_widget() {
  emulate -L zsh
  setopt localtraps
  # Ctrl-C stops ai (it gets the signal) but must not abort the line we are about to restore.
  trap ':' INT
  local __ai_orig=$BUFFER __ai_out __ai_status __ai_errf __ai_why=""
  [[ -n ${__ai_orig//[[:space:]]/} ]] || return 0
  zle -M "ai: thinking…"
  zle -R
  __ai_errf=$(mktemp 2>/dev/null) || __ai_errf=/dev/null
  __ai_out=$(command ai --command --shell zsh "$__ai_orig" </dev/null 2>"$__ai_errf")
  __ai_status=$?
  if [[ $__ai_errf != /dev/null ]]; then
    # The first line says why it failed, or warns about the command (the rest is a hint):
    # shown under the prompt, not lost.
    __ai_why=$(head -n 1 -- "$__ai_errf" 2>/dev/null)
    rm -f -- "$__ai_errf"
  fi
  if (( __ai_status == 0 )) && [[ -n $__ai_out ]]; then
    BUFFER=$__ai_out
  else
    BUFFER=$__ai_orig
  fi
  CURSOR=${#BUFFER}
  zle -M -- "$__ai_why"
  zle -R
}

if [[ -o interactive ]]; then
  zle -N __ai_widget
  bindkey '__AI_KEY__' __ai_widget
fi
