# swebash-ai: shell integration for zsh. Load it with:  eval "$(ai --init zsh)"
# Press Alt-E (or the key given to --init --key) on a typed request: the line is sent to
# `ai --command` and replaced by the suggested command, never run. Ctrl-C or a failure gives the
# typed line back exactly. Sourcing it twice is harmless.

__ai_widget() {
  emulate -L zsh
  setopt localtraps
  # Ctrl-C stops ai (it gets the signal) but must not abort the line we are about to restore.
  trap ':' INT
  local __ai_orig=$BUFFER __ai_out __ai_status
  [[ -n ${__ai_orig//[[:space:]]/} ]] || return 0
  zle -M "ai: thinking…"
  zle -R
  __ai_out=$(command ai --command "$__ai_orig" </dev/null 2>/dev/null)
  __ai_status=$?
  if (( __ai_status == 0 )) && [[ -n $__ai_out ]]; then
    BUFFER=$__ai_out
  else
    BUFFER=$__ai_orig
  fi
  CURSOR=${#BUFFER}
  zle -M ""
  zle -R
}

if [[ -o interactive ]]; then
  zle -N __ai_widget
  bindkey '__AI_KEY__' __ai_widget
fi
