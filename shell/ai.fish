# swebash-ai: shell integration for fish. Load it with:  ai --init fish | source
# Press Alt-E (or the key given to --init --key) on a typed request: the line is sent to
# `ai --command` and replaced by the suggested command, never run. Ctrl-C or a failure gives the
# typed line back exactly. Sourcing it twice is harmless.

function __ai_widget
    set -l __ai_orig (commandline)
    string length -q -- (string trim -- "$__ai_orig"); or return 0
    set -l __ai_out (command ai --command "$__ai_orig" </dev/null 2>/dev/null | string collect)
    set -l __ai_status $pipestatus[1]
    if test $__ai_status -eq 0 -a -n "$__ai_out"
        commandline -r -- $__ai_out
    else
        commandline -r -- $__ai_orig
    end
    commandline -f end-of-line
    commandline -f repaint
end

if status is-interactive
    bind __AI_KEY__ __ai_widget
end
