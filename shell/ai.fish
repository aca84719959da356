# swebash-ai: shell integration for fish. Load it with:  ai --init fish | source
# Press Alt-E (or the key given to --init --key) on a typed request: the line is sent to
# `ai --command` and replaced by the suggested command, never run (one ai would ask for or deny
# comes with a warning). Ctrl-C or a failure gives the typed line back exactly. Sourcing it
# twice is harmless.

function __ai_widget
    set -l __ai_orig (commandline)
    string length -q -- (string trim -- "$__ai_orig"); or return 0
    # The progress mark, drawn over the line until the repaint below.
    printf '\r\e[K%s' "$__ai_orig [ai…]" >/dev/tty 2>/dev/null
    set -l __ai_errf (mktemp 2>/dev/null); or set __ai_errf /dev/null
    set -l __ai_out (command ai --command --shell fish "$__ai_orig" </dev/null 2>$__ai_errf | string collect)
    set -l __ai_status $pipestatus[1]
    set -l __ai_why
    if test "$__ai_errf" != /dev/null
        # The first line says why it failed, or warns about the command (the rest is a hint):
        # shown above the line, not lost.
        set __ai_why (head -n 1 -- $__ai_errf 2>/dev/null)
        rm -f -- $__ai_errf
    end
    printf '\r\e[K' >/dev/tty 2>/dev/null
    if test $__ai_status -eq 0 -a -n "$__ai_out"
        commandline -r -- $__ai_out
    else
        commandline -r -- $__ai_orig
    end
    if test -n "$__ai_why"
        printf '%s\n' "$__ai_why" >/dev/tty 2>/dev/null
    end
    commandline -f end-of-line
    commandline -f repaint
end

if status is-interactive
    bind __AI_KEY__ __ai_widget
end
